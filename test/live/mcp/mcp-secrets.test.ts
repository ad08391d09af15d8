/*
 * `seat mcp` keeps its stdout for the protocol and secrets out of everything it says: a canary XAI_API_KEY in the
 * server's environment, echoed by the model into the answer and by a caller into a refused argument, appears in
 * no tool result, progress notification or stderr line; garbage on stdin and bad calls never end the server.
 * Real grok 1.0.41 behind the server, spoken to as raw JSON-RPC lines so every stdout byte is checked.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { SEAT_HOOKED_MAIN } from "../../support/cli.js";
import { needGrok } from "../../support/requirements.js";
import { startLiveRig } from "../../support/live-rig.js";

type Message = {
  jsonrpc?: string;
  id?: number;
  method?: string;
  result?: Record<string, unknown>;
  error?: unknown;
  params?: Record<string, unknown>;
};

test("a canary key never leaves the server: not in a result, a progress notification, a tool error or stderr; stdout is JSON-RPC only and garbage does not end it", async (t) => {
  const canary = `xai-canary-${randomBytes(12).toString("hex")}`;
  const started = await startLiveRig({
    rules: [{ match: "tell the key", replies: [{ text: `the key is ${canary} ok` }] }],
  });
  if (typeof started === "string") assert.fail(`the real grok binary is required: ${started}`);
  needGrok(t, false);
  t.after(() => started.close());
  const r = started;
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: r.sandbox.home,
    GROK_HOME: r.sandbox.grokHome,
    GROK_BIN: r.binary,
    GROK_SEAT_HOME: join(r.sandbox.root, "seat-home"),
    XAI_API_KEY: canary,
    GROK_SEAT_TEST_HOOKS: "mcp-stray-console",
  };
  const child = spawn(process.execPath, [SEAT_HOOKED_MAIN, "mcp", "--root", r.sandbox.project], {
    env,
    cwd: r.sandbox.project,
    stdio: ["pipe", "pipe", "pipe"],
  });
  t.after(() => void child.kill("SIGKILL"));
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const messages: Message[] = [];
  const waiters = new Map<number, (m: Message) => void>();
  createInterface({ input: child.stdout }).on("line", (line) => {
    stdout += `${line}\n`;
    const message = JSON.parse(line) as Message; // a line that is not JSON fails the test here
    assert.equal(message.jsonrpc, "2.0", line);
    messages.push(message);
    if (message.id !== undefined && waiters.has(message.id)) waiters.get(message.id)!(message);
  });
  const send = (m: object | string) =>
    child.stdin.write(`${typeof m === "string" ? m : JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
  let nextId = 1;
  const request = (method: string, params: object): Promise<Message> => {
    const id = nextId++;
    const answered = new Promise<Message>((resolve) => waiters.set(id, resolve));
    send({ id, method, params });
    return answered;
  };

  await request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  });
  send({ method: "notifications/initialized" });
  send("this is not json");
  send({ id: 999, method: "no/such/method", params: {} });
  const unknownTool = await request("tools/call", { name: "no_such_tool", arguments: {} });
  assert.ok(unknownTool.error !== undefined || unknownTool.result?.isError === true, JSON.stringify(unknownTool));
  // A caller echoes the key into an argument that is refused: the error names the path, masked.
  const refused = await request("tools/call", { name: "run", arguments: { prompt: "hi", cwd: `/nowhere/${canary}` } });
  assert.equal(refused.result?.isError, true);
  assert.match(JSON.stringify(refused.result), /MCP_CWD_OUTSIDE_ROOTS/);
  // The model echoes the key into its answer, streamed as progress and returned as the result.
  const answered = await request("tools/call", {
    name: "run",
    arguments: { prompt: "tell the key" },
    _meta: { progressToken: "p1" },
  });
  const structured = answered.result?.structuredContent as { text: string; stopReason: string } | undefined;
  assert.equal(structured?.stopReason, "end_turn", JSON.stringify(answered));
  assert.match(
    structured!.text,
    /the key is \[redacted\] ok/,
    "positive control: the model did echo a key, and it was masked",
  );
  const progress = messages.filter((m) => m.method === "notifications/progress");
  assert.ok(progress.length > 0, "progress was sent");

  // Garbage and bad calls did not end the server: it still answers.
  const listed = await request("tools/list", {});
  assert.ok(Array.isArray(listed.result?.tools));
  assert.equal(child.exitCode, null);
  child.stdin.end();
  await new Promise((resolve) => child.once("close", resolve));
  assert.equal(child.exitCode, 0, stderr);
  assert.ok(!stdout.includes(canary), "no stdout line holds the canary");
  assert.ok(!stderr.includes(canary), "stderr does not hold the canary");
  assert.match(
    stderr,
    /a stray console\.log from somewhere/,
    "positive control: the stray output was made, and went to stderr",
  );
  assert.match(
    stderr,
    /a stray warning quoting the key: \S/,
    "a console.warn quoting the key reached stderr, redacted",
  );
});
