import { test } from "node:test";
import assert from "node:assert/strict";
import { escapeHtml, renderBoard } from "./page.js";
import { isLoopback, startBoard } from "./server.js";
import { isSeatError } from "../errors.js";

const hostile = `<script>alert("x")</script>'&\``;

test("every value on the page is escaped, and approve / deny are POST forms carrying the token", () => {
  const html = renderBoard({
    items: [{ kind: "job", id: hostile, agent: hostile, state: "waiting", waitingOn: "approval", since: hostile, cwd: hostile, pendingApprovals: 1 }],
    approvals: [{ id: hostile, category: "execute", title: hostile, target: { command: hostile }, digest: "0".repeat(64), owner: { kind: "job", id: hostile, host: hostile }, askedAt: hostile, deadline: hostile }],
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
  await assert.rejects(startBoard({ token: "short" }), (e) => isSeatError(e, "CLI_USAGE"));
});
