import { test } from "node:test";
import assert from "node:assert/strict";
import { escapeHtml, renderBoard } from "./page.js";
import { isLoopback, startBoard } from "./server.js";
import { isSeatError } from "../errors.js";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { ApprovalQueue, parseAnswer } from "../approvals/index.js";
import { createPermissionGate, parsePolicyFlags } from "../permissions/index.js";

const hostile = `<script>alert("x")</script>'&\``;

test("every value on the page is escaped, and approve / deny are POST forms carrying the token", () => {
  const html = renderBoard({
    items: [
      {
        kind: "job",
        id: hostile,
        agent: hostile,
        state: "waiting",
        waitingOn: "approval",
        since: hostile,
        cwd: hostile,
        pendingApprovals: 1,
      },
    ],
    approvals: [
      {
        id: hostile,
        category: "execute",
        title: hostile,
        target: { command: hostile },
        digest: "0".repeat(64),
        owner: { kind: "job", id: hostile, host: hostile },
        askedAt: hostile,
        deadline: hostile,
      },
    ],
    token: "tok-en",
    notice: hostile,
  });
  assert.ok(!html.includes("<script>"), "no raw markup from a value");
  assert.ok(!html.includes(`"x"`));
  assert.ok(html.includes(escapeHtml(hostile)));
  const forms = html.match(/<form [^>]*>/g) ?? [];
  assert.equal(forms.length, 2);
  for (const form of forms) assert.match(form, /method="post" action="\/approvals\/%3Cscript%3E/);
  assert.equal((html.match(/name="token" value="tok-en"/g) ?? []).length, 2);
});

test("escapeHtml turns each markup character into an entity", () => {
  assert.equal(escapeHtml(`<a href="x">'&\``), "&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#96;");
});

test("a board on an address other machines reach needs a token from the environment, and starts nothing without one", async () => {
  assert.ok(isLoopback("127.0.0.1") && isLoopback("::1") && isLoopback("localhost"));
  assert.ok(!isLoopback("0.0.0.0") && !isLoopback("192.168.1.2"));
  await assert.rejects(startBoard({ host: "0.0.0.0" }), (e) => isSeatError(e, "BOARD_UNSAFE_ADDRESS"));
  await assert.rejects(startBoard({ token: "short" }), (e) => isSeatError(e, "BOARD_TOKEN_INVALID"));
});

test("the board shows a held target exact and cut only with its length said; its detail page shows it whole; a form carrying another digest answers nothing and the shown one answers it", async () => {
  const queue = new ApprovalQueue({ owner: () => ({ kind: "session", id: "board-exact" }), timeoutMs: 60_000 });
  const command = `token="$(touch PWNED)"; echo ${"w".repeat(2_100)}; echo x > FILE`;
  const request = {
    sessionId: "s",
    toolCall: { toolCallId: "c", kind: "execute", title: "Run it", rawInput: { command } },
    options: [
      { optionId: "allow-once", name: "Yes", kind: "allow_once" },
      { optionId: "reject-once", name: "No", kind: "reject_once" },
    ],
  } as unknown as RequestPermissionRequest;
  const gate = createPermissionGate({ policy: parsePolicyFlags({}) });
  const decided = gate.decide(request, { approver: queue.approver(), timeoutMs: 60_000 });
  const board = await startBoard({
    approvals: { list: async () => queue.list(), answer: async (id, answer) => queue.answer(id, parseAnswer(answer)) },
    listing: { home: "/nonexistent-board-home" },
  });
  try {
    const headers = { authorization: `Bearer ${board.token}` };
    let pending = queue.list()[0];
    for (let i = 0; !pending && i < 200; i += 1)
      await new Promise((r) => setTimeout(r, 5)), (pending = queue.list()[0]);
    assert.ok(pending);
    const page = await (await fetch(board.url, { headers })).text();
    assert.ok(page.includes(escapeHtml(`token="$(touch PWNED)"; echo www`)), "the row shows the command exact");
    assert.ok(
      page.includes(escapeHtml(`[cut: 200 of ${command.length} characters shown; open the approval to see it whole]`)),
      "the row says it is cut and how long it is",
    );
    assert.equal(
      (page.match(new RegExp(`name="digest" value="${pending.digest}"`, "g")) ?? []).length,
      2,
      "each form carries the digest",
    );
    const detail = await (await fetch(new URL(`approvals/${pending.id}`, board.url), { headers })).text();
    assert.ok(detail.includes(`<pre id="target">${escapeHtml(command)}</pre>`), "the detail page shows it whole");
    const post = (digest: string) =>
      fetch(new URL(`approvals/${pending!.id}/allow`, board.url), {
        method: "POST",
        redirect: "manual",
        headers: { ...headers, origin: new URL(board.url).origin, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: board.token, digest }).toString(),
      });
    const wrong = await post("e".repeat(64));
    assert.equal(wrong.status, 409);
    assert.match(await wrong.text(), /APPROVAL_TARGET_CHANGED/);
    assert.equal(queue.list().length, 1, "still held");
    assert.equal((await post(pending.digest)).status, 303);
    assert.deepEqual((await decided).response, { outcome: { outcome: "selected", optionId: "allow-once" } });
  } finally {
    await board.close();
    queue.close();
  }
});
