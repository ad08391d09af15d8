/*
 * Approval by link, end to end on the real grok 1.0.41 against the mock, in Debian's chromium (headless, driven by
 * playwright-core): `seat board` runs for the seat home; `seat run --notify` holds a shell command; a loopback
 * receiver gets the signed webhook (signature and schema verified) whose Approve link carries no board token; the
 * browser opens it (the command shown whole, nothing run), confirms with one tap, and the command runs exactly
 * once. The same link again, an expired link, a link with one character changed and a link made for another
 * command are each refused with their own code and run nothing. A missing binary fails.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { targetDigest } from "../../../src/approvals/target.js";
import { findLinkKey, linkPath, signLink } from "../../../src/approval-links/index.js";
import { runSeat, startSeat } from "../../support/cli.js";
import { need, needGrok } from "../../support/requirements.js";
import { startLiveRig } from "../../support/live-rig.js";
import { startNotifyReceiver } from "../../support/notify-receiver.js";
import type { MockScript } from "../../../src/mock-model/index.js";
import { chromiumMissing, launchChromium } from "../../support/chromium.js";
import { untilDefined } from "../../support/poll.js";

const SECRET = "links-live-secret-0123456789";
const APPROVED = 'echo "$(echo ran)" >> linked.txt';
const REFUSED = "echo ran >> refused.txt";

const SCRIPT: MockScript = {
  rules: [
    {
      match: "link approve case",
      replies: [
        {
          toolCalls: [
            { name: "run_terminal_command", arguments: { command: APPROVED, description: "append to linked.txt" } },
          ],
        },
        { text: "approve case done" },
      ],
    },
    {
      match: "link refuse case",
      replies: [
        {
          toolCalls: [
            { name: "run_terminal_command", arguments: { command: REFUSED, description: "append to refused.txt" } },
          ],
        },
        { text: "refuse case done" },
      ],
    },
  ],
};

interface Waiting {
  event: string;
  text: string;
  approval: { id: string; command: string; digest: string; approve_url?: string; deny_url?: string };
}

const until = <T>(what: string, probe: () => T | undefined, timeoutMs = 90_000): Promise<T> =>
  untilDefined(what, probe, { timeoutMs, everyMs: 100 });

/** Opens `url` in the browser and returns the outcome heading and detail a refusal page shows. */
async function refusal(page: Page, url: string): Promise<string> {
  await page.goto(url);
  assert.equal(await page.locator("#confirm").count(), 0, `a refused link offers no confirm: ${url}`);
  return `${await page.locator("#outcome").innerText()} ${await page.locator("#detail").innerText()}`;
}

/** A confirm POST as the link's own page would send it (same origin): refused links must refuse it too. */
async function confirmDirect(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: {
      origin: new URL(url).origin,
      "sec-fetch-site": "same-origin",
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "",
  });
  return { status: res.status, text: await res.text() };
}

test("approval by link in chromium: the signed webhook's Approve link shows the command, one tap runs it exactly once; a used, expired, altered or stale link is refused by code and runs nothing", async (t) => {
  if (!need(t, chromiumMissing())) return;
  const live = await startLiveRig(SCRIPT);
  if (typeof live === "string") assert.fail(`the real grok binary is required: ${live}`);
  needGrok(t, false);
  const cleanups: Array<() => Promise<unknown>> = [() => live.close()];
  t.after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });
  const receiver = await startNotifyReceiver(SECRET);
  cleanups.push(() => receiver.close());
  const config = join(live.sandbox.root, "xdg");
  mkdirSync(join(config, "grok-seat"), { recursive: true });
  writeFileSync(
    join(config, "grok-seat", "config.json"),
    JSON.stringify({
      notify: { targets: { hook: { type: "webhook", url: `${receiver.url}/hook`, secretEnv: "HOOK_SECRET" } } },
    }),
  );
  const seatHome = join(live.sandbox.root, "seat-home");
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: live.sandbox.home,
    GROK_HOME: live.sandbox.grokHome,
    GROK_BIN: live.binary,
    GROK_SEAT_HOME: seatHome,
    XDG_CONFIG_HOME: config,
    HOOK_SECRET: SECRET,
    NO_COLOR: "1",
  };
  const cwd = live.sandbox.project;

  const board = startSeat(["board"], { env, cwd });
  cleanups.push(async () => {
    board.child.kill("SIGTERM");
    await board.done;
  });
  const boardLine = await until("the board's address", () => /board: (\S+)/.exec(board.stdout())?.[1]);
  const token = new URL(boardLine).searchParams.get("token");
  assert.ok(token, boardLine);

  const artefacts = mkdtempSync(join(tmpdir(), "seat-board-links-"));
  const context = await launchChromium(join(artefacts, "profile"));
  cleanups.push(async () => {
    await context.close();
    rmSync(join(artefacts, "profile"), { recursive: true, force: true });
  });
  const page = await context.newPage();

  const waitingFor = (command: string) =>
    until(
      `the waiting notification for ${command}`,
      () =>
        [...receiver.accepted.values()].find(
          (e) => (e as Waiting).event === "waiting" && (e as Waiting).approval.command === command,
        ) as Waiting | undefined,
    );

  // 1. Approve by link: opened (nothing runs), confirmed (runs once).
  const approveRun = startSeat(["run", "-s", "linked", "--notify", "hook", "--json", "please run link approve case"], {
    env,
    cwd,
  });
  cleanups.push(async () => void approveRun.child.kill("SIGKILL"));
  const waiting = await waitingFor(APPROVED);
  const approveUrl = waiting.approval.approve_url;
  assert.ok(approveUrl && waiting.approval.deny_url, `the notification carries both links: ${JSON.stringify(waiting)}`);
  assert.equal(new URL(approveUrl).origin, new URL(boardLine).origin, "the link goes to the board of this seat home");
  for (const url of [approveUrl, waiting.approval.deny_url]) {
    assert.ok(!url.includes(token), "a link never carries the board's token");
    assert.ok(!url.includes(new URL(boardLine).pathname.slice(1, -1)), "nor its secret path");
  }
  assert.ok(
    receiver.requests.every((q) => q.refused === undefined),
    "every webhook verified (signature, schema)",
  );
  await page.goto(approveUrl);
  assert.equal(await page.locator("#target").innerText(), APPROVED, "the page shows the exact command");
  await page.screenshot({ path: join(artefacts, "confirm.png"), fullPage: true });
  t.diagnostic(`confirm page screenshot: ${join(artefacts, "confirm.png")}`);
  assert.equal(existsSync(join(cwd, "linked.txt")), false, "opening the link ran nothing");
  await Promise.all([page.waitForLoadState("load"), page.locator("#confirm").click()]);
  assert.equal(await page.locator("#outcome").innerText(), "Approved");
  const approved = await approveRun.done;
  assert.equal(approved.code, 0, approved.stderr);
  assert.equal(readFileSync(join(cwd, "linked.txt"), "utf8"), "ran\n", "the approved command ran exactly once");

  // 2. The same link again: refused, on open and on confirm, and nothing runs again.
  assert.match(await refusal(page, approveUrl), /APPROVAL_LINK_USED/);
  const reused = await confirmDirect(approveUrl);
  assert.equal(reused.status, 410);
  assert.match(reused.text, /APPROVAL_LINK_USED/);

  // 3. A held approval whose links are tampered with, expired or made for another command.
  const refuseRun = startSeat(["run", "-s", "refused", "--notify", "hook", "--json", "please run link refuse case"], {
    env,
    cwd,
  });
  cleanups.push(async () => void refuseRun.child.kill("SIGKILL"));
  const held = await waitingFor(REFUSED);
  const heldUrl = new URL(held.approval.approve_url!);
  const key = findLinkKey(seatHome);
  assert.ok(key, "the board made the seat home's link key");
  const base = heldUrl.origin;
  const expired = `${base}${linkPath(key, signLink(key, { id: held.approval.id, decision: "allow", digest: held.approval.digest, deadline: new Date(Date.now() - 1_000) }))}`;
  const stale = `${base}${linkPath(key, signLink(key, { id: held.approval.id, decision: "allow", digest: targetDigest({ command: "echo an earlier command" }), deadline: new Date(Date.now() + 600_000) }))}`;
  const signature = heldUrl.searchParams.get("s")!;
  const altered = new URL(heldUrl.href);
  altered.searchParams.set("s", `${signature[0] === "A" ? "B" : "A"}${signature.slice(1)}`);
  const cases: Array<[string, string, number]> = [
    [expired, "APPROVAL_LINK_EXPIRED", 410],
    [altered.href, "APPROVAL_LINK_INVALID", 403],
    [stale, "APPROVAL_TARGET_CHANGED", 409],
  ];
  for (const [url, code, status] of cases) {
    assert.match(await refusal(page, url), new RegExp(code), url);
    const posted = await confirmDirect(url);
    assert.equal(posted.status, status, `${code}: ${posted.text}`);
    assert.match(posted.text, new RegExp(code));
  }
  assert.equal(existsSync(join(cwd, "refused.txt")), false, "no refused link ran the command");
  const listed = await runSeat(["approvals", "--json"], { env, cwd });
  assert.ok(listed.stdout.includes(held.approval.id), `still held after every refusal: ${listed.stdout}`);

  // The real Deny link ends it: denied, so the command never runs.
  await page.goto(held.approval.deny_url!);
  await Promise.all([page.waitForLoadState("load"), page.locator("#confirm").click()]);
  assert.equal(await page.locator("#outcome").innerText(), "Denied");
  const denied = await refuseRun.done;
  const answered = denied.stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { type: string; decision?: string })
    .filter((e) => e.type === "approval_answered");
  assert.deepEqual(
    answered.map((e) => e.decision),
    ["deny"],
    denied.stdout,
  );
  assert.equal(existsSync(join(cwd, "refused.txt")), false, "the denied command never ran");
});
