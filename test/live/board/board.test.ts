/*
 * The board in a real browser: Debian's chromium, headless, driven by playwright-core, against a board that lists
 * a running fleet job (real grok, real redis-server, a `seat worker` process) and a named session on real grok
 * whose shell command waits on an approval held by this test. Without the token everything is 401; a POST from
 * another origin is refused; clicking Approve forwards exactly one answer and the command then runs once
 * (read from the disk). A screenshot is kept in the test's temp dir (its path is printed).
 */
import { test } from "node:test";
import { targetDigest } from "../../../src/approvals/target.js";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectFleet } from "../../../src/fleet/index.js";
import { createPermissionGate, parsePolicyFlags } from "../../../src/permissions/index.js";
import { openSession } from "../../../src/sessions/index.js";
import { startBoard } from "../../../src/board/server.js";
import type { ApprovalAnswer, ApprovalsSource, PendingApproval } from "../../../src/supervision/approvals-source.js";
import { gotLive, need } from "../../support/requirements.js";
import { startLiveRig } from "../../support/live-rig.js";
import { redisMissing, startFleetRig, until } from "../../support/fleet-rig.js";
import { chromiumMissing, launchChromium } from "../../support/chromium.js";

test("the board shows a running job and a pending approval in chromium, refuses without token or origin, and one click approves once", async (t) => {
  if (!need(t, redisMissing())) return;
  if (!need(t, chromiumMissing())) return;
  const live = await startLiveRig({
    rules: [
      { match: "hang here", replies: [{ hang: true }] },
      {
        match: "wait for me",
        replies: [
          {
            toolCalls: [
              {
                name: "run_terminal_command",
                arguments: { command: "echo ran >> marker-board.txt", description: "append to marker-board.txt" },
              },
            ],
          },
          { text: "approved and ran" },
        ],
      },
    ],
  });
  if (!gotLive(t, live)) return;
  const fleet = await startFleetRig();
  const client = await connectFleet(fleet.redis.url);
  const artefacts = mkdtempSync(join(tmpdir(), "seat-board-test-"));
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    const hostEnv = { HOME: live.sandbox.home, GROK_HOME: live.sandbox.grokHome, GROK_BIN: live.binary };
    await fleet.startWorker("host-a", { env: hostEnv });
    const job = await client.enqueue({ prompt: "hang here", cwd: live.sandbox.project });
    await until(
      async () => ((await job.state()).attentionState === "working" ? true : undefined),
      60_000,
      "the job working",
    );

    // A real approval: the named session's gate waits in its approver until the source forwards an answer.
    const pending: PendingApproval[] = [];
    const answers: Array<{ id: string; answer: ApprovalAnswer }> = [];
    let release: (decision: "allow" | "deny") => void = () => undefined;
    const source: ApprovalsSource = {
      list: async () => [...pending],
      answer: async (id, answer) => {
        answers.push({ id, answer });
        release(answer.decision);
        return { id, decision: answer.decision };
      },
    };
    const home = join(live.sandbox.home, ".grok-seat");
    const opened = await openSession({
      ...live.sessionOptions,
      home,
      name: "board-wait",
      permissions: createPermissionGate({
        policy: parsePolicyFlags({ ask: ["execute"] }),
        approver: (question) =>
          new Promise((resolve) => {
            const command = String(
              (question.request.toolCall.rawInput as { command?: unknown } | undefined)?.command ?? "",
            );
            pending.push({
              id: "ap-<1>",
              category: question.category,
              title: question.request.toolCall.title ?? "tool",
              target: { command },
              digest: targetDigest({ command }),
              owner: { kind: "named-session", id: "board-wait", name: "board-wait", pid: process.pid },
              askedAt: new Date().toISOString(),
              deadline: new Date(Date.now() + 120_000).toISOString(),
            });
            release = (decision) => {
              pending.length = 0;
              resolve(decision);
            };
          }),
      }),
    });
    cleanups.push(() => opened.session.dispose());
    assert.equal(opened.session.state, "ready", JSON.stringify(opened.session.diagnostics));
    const turn = opened.session.prompt("wait for me");
    await until(() => (pending.length === 1 ? true : undefined), 60_000, "the approval pending");

    const board = await startBoard({ listing: { home, fleet: client }, approvals: source, redisUrl: fleet.redis.url });
    cleanups.push(() => board.close());

    // Without the token: 401, whatever the route or method; with the token but from another origin: 403.
    for (const path of ["", "queues/", "queues/api/queues", "approvals/ap-%3C1%3E/allow"]) {
      const res = await fetch(`${board.url}${path}`, {
        method: path.startsWith("approvals") ? "POST" : "GET",
        redirect: "manual",
      });
      assert.equal(res.status, 401, path);
    }
    const foreign = await fetch(`${board.url}approvals/ap-%3C1%3E/allow`, {
      method: "POST",
      redirect: "manual",
      headers: {
        cookie: `seat_board=${board.token}`,
        origin: "http://evil.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: `token=${board.token}`,
    });
    assert.equal(foreign.status, 403);
    assert.equal(answers.length, 0, "nothing was answered by a refused request");

    const context = await launchChromium(join(artefacts, "profile"));
    // The browser profile goes with the browser; the screenshots stay as the test's artefacts.
    cleanups.push(async () => {
      await context.close();
      rmSync(join(artefacts, "profile"), { recursive: true, force: true });
    });
    const page = await context.newPage();
    await page.goto(`${board.url}?token=${board.token}`);
    assert.equal(new URL(page.url()).search, "", "the token left the address bar");
    const jobRow = page.locator(`#items tr[data-kind="job"][data-id="${job.id}"]`);
    assert.match(await jobRow.innerText(), /working/);
    const sessionRow = page.locator('#items tr[data-kind="named-session"][data-id="board-wait"]');
    assert.match(await sessionRow.innerText(), /waiting \(approval\)/);
    const approvalRow = page.locator('#approvals tr[data-approval="ap-<1>"]');
    assert.match(await approvalRow.innerText(), /echo ran >> marker-board\.txt/);
    const screenshot = join(artefacts, "board.png");
    await page.screenshot({ path: screenshot, fullPage: true });
    t.diagnostic(`board screenshot: ${screenshot}`);
    assert.ok(existsSync(join(live.sandbox.project, "marker-board.txt")) === false, "nothing ran before the click");

    await Promise.all([page.waitForURL(/answered=/), approvalRow.getByRole("button", { name: "Approve" }).click()]);
    assert.deepEqual(
      answers.map((a) => [a.id, a.answer.decision, a.answer.by]),
      [["ap-<1>", "allow", "board"]],
    );
    const result = await turn;
    assert.equal(result.stopReason, "end_turn", JSON.stringify(result.diagnostic));
    assert.equal(
      readFileSync(join(live.sandbox.project, "marker-board.txt"), "utf8"),
      "ran\n",
      "the approved command ran exactly once",
    );
    await page.reload();
    assert.equal(answers.length, 1, "reloading the result page answers nothing");
    assert.match(await page.content(), /No approval is pending/);

    // The fleet's queues are bull-board's own view, behind the same cookie.
    await page.goto(`${board.url}queues/`);
    await page.getByText("jobs", { exact: false }).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(artefacts, "queues.png"), fullPage: true });
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await cancelLeftovers(client);
    await client.close();
    await fleet.close();
    await live.close();
  }
});

/** Cancels whatever the test left running in the fleet (the hanging job), so the worker exits promptly. */
async function cancelLeftovers(client: Awaited<ReturnType<typeof connectFleet>>): Promise<void> {
  for (const record of await client.list(10)) {
    if (record.status === "dispatched" || record.status === "active" || record.status === "waiting")
      await client
        .job(record.id)
        .cancel({ ackTimeoutMs: 5_000 })
        .catch(() => undefined);
  }
}
