// Approval by link for the fleet, end to end: a real redis-server, a real `seat worker` (its agent fake-grok, a real
// ACP process), `seat board --redis` with the fleet key, a loopback receiver verifying the webhook's signature and
// schema, and Debian's chromium (headless, playwright-core) opening the link. The link is signed with a key derived
// from GROK_SEAT_FLEET_KEY (never stored), the board's address in Redis is MAC'd with it; one tap answers the held
// call through Redis exactly once; the same link again, a link with one character changed and an expired link are
// refused by code; an address record forged in Redis by someone without the fleet key gives no links.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectFleet } from "../../../src/fleet/index.js";
import { connect, parseRedisUrl } from "../../../src/redis/connection.js";
import { fleetApprovalLinks, fleetLinkKey, readBoardLinks } from "../../../src/fleet/approval-links.js";
import { BOARD_LINKS_KEY } from "../../../src/fleet/keys.js";
import { linkPath, signLink } from "../../../src/approval-links/index.js";
import type { CursorEvent } from "../../../src/fleet/index.js";
import { need } from "../../support/requirements.js";
import { until as untilValue, withFleet, type FleetRig } from "../../support/fleet-rig.js";
import { startNotifyReceiver, type NotifyReceiver } from "../../support/notify-receiver.js";
import { chromiumMissing, launchChromium } from "../../support/chromium.js";
import { startFleetBoard } from "../../support/fleet-board.js";

const SECRET = "whsec-fleet-links-0123456789";
/** A canary: the fleet key, only ever in process environments. */
const FLEET_KEY = "fleet-links-canary-key-0123456789abcdef-XYZ";

interface Waiting {
  event: string;
  text: string;
  subject: { kind: string; id: string };
  approval: { id: string; digest: string; command: string; approve_url?: string; deny_url?: string };
}

function workerEnv(rig: FleetRig, name: string, receiver: NotifyReceiver, key?: string): Record<string, string> {
  const dir = join(rig.root, `config-${name}`);
  mkdirSync(join(dir, "grok-seat"), { recursive: true });
  writeFileSync(
    join(dir, "grok-seat", "config.json"),
    JSON.stringify({ notify: { targets: { hook: { type: "webhook", url: `${receiver.url}/hook`, secret: SECRET } } } }),
  );
  return { XDG_CONFIG_HOME: dir, ...(key ? { GROK_SEAT_FLEET_KEY: key } : {}) };
}

const waitingOf = (receiver: NotifyReceiver, jobId: string) =>
  untilValue(
    () =>
      [...receiver.accepted.values()].find(
        (e) => (e as Waiting).event === "waiting" && (e as Waiting).subject.id === jobId,
      ) as Waiting | undefined,
    20_000,
    `the waiting notification of job ${jobId}`,
  );

test("a fleet job's waiting carries Approve/Deny links to the seat board serving the fleet: one tap in chromium answers it through Redis once; used, altered and expired links are refused; a forged address gives no links", async (t) => {
  if (!need(t, chromiumMissing())) return;
  const receiver = await startNotifyReceiver(SECRET);
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    await withFleet(t, async (rig) => {
      try {
        await linked(rig);
      } finally {
        // Before the rig stops its redis-server: nothing left to reconnect to it.
        for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
      }
    });
  } finally {
    await receiver.close();
  }

  async function linked(rig: FleetRig): Promise<void> {
    const client = await connectFleet(rig.redis.url, { env: { GROK_SEAT_FLEET_KEY: FLEET_KEY } });
    cleanups.push(() => client.close());
    await rig.startWorker("host-a", { env: workerEnv(rig, "a", receiver, FLEET_KEY) });

    // Without a board serving the fleet: no links, and the text says how to answer and why.
    const early = await client.enqueue({ prompt: "TOOLTEST run it", notify: ["hook"] });
    const unlinked = await waitingOf(receiver, early.id);
    assert.equal(unlinked.approval.approve_url, undefined);
    assert.match(unlinked.text, /seat approve .* --redis .*no seat board serves this fleet's links now/);
    await early.cancel();

    const board = await startFleetBoard(rig.root, rig.redis.url, FLEET_KEY);
    cleanups.push(() => board.stop());
    const boardLine = board.url;
    const token = new URL(boardLine).searchParams.get("token")!;
    const redis = connect(parseRedisUrl(rig.redis.url), { name: "test" });
    cleanups.push(async () => redis.disconnect());
    const record = (await redis.get(BOARD_LINKS_KEY)) ?? "";
    assert.ok(record.includes(new URL(boardLine).origin), `the board published its address: ${record}`);
    assert.ok(!record.includes(FLEET_KEY) && !record.includes(token), "no key and no token in Redis");
    assert.ok(!record.includes(fleetLinkKey(FLEET_KEY).toString("base64url")), "nor the derived link key");

    const job = await client.enqueue({ prompt: "TOOLTEST run it", notify: ["hook"] });
    const waiting = await waitingOf(receiver, job.id);
    const approveUrl = waiting.approval.approve_url;
    assert.ok(approveUrl && waiting.approval.deny_url, `both links: ${JSON.stringify(waiting)}`);
    assert.equal(new URL(approveUrl).origin, new URL(boardLine).origin, "the link goes to the board");
    assert.ok(!approveUrl.includes(token), "a link never carries the board's token");
    assert.ok(!waiting.text.includes("seat approve"), "with links, the text needs no shell hint");
    assert.ok(
      receiver.requests.every((q) => q.refused === undefined && !q.body.includes(FLEET_KEY)),
      "every webhook verified; the fleet key is in none",
    );

    const artefacts = mkdtempSync(join(tmpdir(), "seat-fleet-links-"));
    const context = await launchChromium(join(artefacts, "profile"));
    cleanups.push(async () => {
      await context.close();
      rmSync(artefacts, { recursive: true, force: true });
    });
    const page = await context.newPage();
    await page.goto(approveUrl);
    assert.equal(await page.locator("#confirm").count(), 1, "the link page offers one confirm");
    assert.match(await page.locator("#approval").innerText(), new RegExp(waiting.approval.id));
    const refused = async (url: string) => {
      await page.goto(url);
      assert.equal(await page.locator("#confirm").count(), 0, `a refused link offers no confirm: ${url}`);
      return `${await page.locator("#outcome").innerText()} ${await page.locator("#detail").innerText()}`;
    };
    // One character changed, or expired (signed with the fleet's link key, past its deadline): refused, unanswered.
    const changed = new URL(approveUrl);
    const s = changed.searchParams.get("s")!;
    changed.searchParams.set("s", `${s[0] === "A" ? "B" : "A"}${s.slice(1)}`);
    assert.match(await refused(changed.href), /APPROVAL_LINK_INVALID/);
    const key = fleetLinkKey(FLEET_KEY);
    const expired = `${changed.origin}${linkPath(key, signLink(key, { id: waiting.approval.id, decision: "allow", digest: waiting.approval.digest, deadline: new Date(Date.now() - 1_000) }))}`;
    assert.match(await refused(expired), /APPROVAL_LINK_EXPIRED/);

    await page.goto(approveUrl);
    await Promise.all([page.waitForLoadState("load"), page.locator("#confirm").click()]);
    assert.equal(await page.locator("#outcome").innerText(), "Approved");
    const events: CursorEvent["event"][] = [];
    for await (const { event } of job.events()) events.push(event);
    const answered = events.filter((e) => e.type === "approval_answered") as Array<{ via?: string }>;
    assert.deepEqual(
      answered.map((e) => e.via),
      ["answer"],
      "answered once, through Redis",
    );
    const permissions = events.filter((e) => e.type === "permission") as Array<{ decision: string }>;
    assert.deepEqual(
      permissions.map((p) => p.decision),
      ["allow"],
      "the held call ran once",
    );
    assert.match(await refused(approveUrl), /APPROVAL_LINK_USED/);

    // Someone who can write Redis but lacks the fleet key points the record elsewhere: no links are made from it.
    await redis.set(
      BOARD_LINKS_KEY,
      JSON.stringify({
        schema: "grok-seat.fleet-board-address.v1",
        links_url: "https://evil.example",
        expires: Date.now() + 60_000,
        mac: "x",
      }),
    );
    assert.equal(await readBoardLinks(redis, key), undefined);
    assert.equal(
      await fleetApprovalLinks(redis, key, { id: "a1", digest: "0".repeat(64), deadline: new Date().toISOString() }),
      undefined,
    );
  }
});
