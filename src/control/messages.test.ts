import { test } from "node:test";
import assert from "node:assert/strict";
import { createConnection } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { controlRequestProblem, parseControlRequest } from "./messages.js";
import { startControlServer } from "./socket.js";

/** One raw line to a socket, its one-line answer parsed: what any process on the other end may send. */
function sendLine(path: string, line: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${line}\n`));
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(JSON.parse(answer.trim()) as Record<string, unknown>));
  });
}

test("controlRequestProblem accepts the four requests and refuses anything else, a stray key included", () => {
  for (const ok of [
    { op: "cancel" },
    { op: "state" },
    { op: "approvals" },
    { op: "answer", id: "a1", answer: "allow" },
  ])
    assert.equal(controlRequestProblem(ok), null, JSON.stringify(ok));
  assert.match(controlRequestProblem(null) ?? "", /JSON object/);
  assert.match(controlRequestProblem(["cancel"]) ?? "", /JSON object/);
  assert.match(controlRequestProblem({ op: "prompt", text: "hi" }) ?? "", /op must be one of/);
  assert.match(controlRequestProblem({ op: "cancel", prompt: "x" }) ?? "", /cancel takes no "prompt"/);
  assert.match(controlRequestProblem({ op: "answer", id: 42, answer: "allow" }) ?? "", /approval's id/);
  assert.match(controlRequestProblem({ op: "answer", id: "a1" }) ?? "", /needs the answer/);
  assert.equal(parseControlRequest({ op: "state", extra: true }), null);
});

test("the server checks every line against the schema: a request that does not fit does nothing and says why with its own code", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "gs-ctl-msg-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const calls: string[] = [];
  const server = await startControlServer(dir, {
    cancel: async () => (calls.push("cancel"), {}),
    approvals: {
      list: () => [],
      answer: (id) => (calls.push(`answer ${id}`), { id, decision: "allow" }),
    },
  });
  t.after(() => server.close());
  // An answer whose id is not a string was told "this run holds no approvals" (APPROVAL_NOT_FOUND) by a run
  // that holds them; a cancel with a key it does not know cancelled the turn.
  const badAnswer = await sendLine(server.path, JSON.stringify({ op: "answer", id: 42, answer: "allow" }));
  assert.equal(badAnswer.ok, false);
  assert.equal(badAnswer.code, "CONTROL_REQUEST_INVALID");
  assert.match(String(badAnswer.error), /control schema: answer needs the approval's id/);
  const strayCancel = await sendLine(server.path, JSON.stringify({ op: "cancel", prompt: "rm -rf /" }));
  assert.equal(strayCancel.code, "CONTROL_REQUEST_INVALID");
  const notJson = await sendLine(server.path, "cancel");
  assert.equal(notJson.code, "CONTROL_REQUEST_INVALID");
  assert.deepEqual(calls, [], "nothing that did not fit was acted on");
  const unserved = await sendLine(server.path, JSON.stringify({ op: "state" }));
  assert.equal(unserved.code, "CONTROL_OP_UNSERVED");
  const good = await sendLine(server.path, JSON.stringify({ op: "answer", id: "a1", answer: "allow" }));
  assert.deepEqual(good, { ok: true, id: "a1", decision: "allow" });
  assert.deepEqual(calls, ["answer a1"]);
});

test("close() ends a peer that connected and never sent its line: a turn's close does not wait on it", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "gs-ctl-idle-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startControlServer(dir, { cancel: async () => ({}) });
  const idle = createConnection(server.path);
  const peerClosed = new Promise<void>((resolve) => idle.on("close", () => resolve()));
  idle.on("error", () => undefined);
  await new Promise<void>((resolve) => idle.on("connect", () => resolve()));
  const closed = server.close().then(() => "closed" as const);
  const waited = new Promise<"still waiting">((resolve) => setTimeout(() => resolve("still waiting"), 2_000).unref());
  assert.equal(await Promise.race([closed, waited]), "closed", "close() resolved although the peer never wrote");
  await peerClosed;
});
