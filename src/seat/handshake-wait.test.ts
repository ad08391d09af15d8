/*
 * The handshake wait's re-send of a read grok may have dropped: sent again only while the leader's log is quiet,
 * at most `max` more times, the first answer wins. A fake leader client (pongs at once) and a real log file.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSeatError } from "../errors.js";
import type { LeaderClient } from "../leader/index.js";
import { awaitHandshake, type HandshakeWatch } from "./handshake-wait.js";

const PID = 4242;
const never = new Promise<never>(() => {});

function rig(): { watch: HandshakeWatch; logLine: () => void; close: () => void } {
  const grokHome = mkdtempSync(join(tmpdir(), "seat-handshake-"));
  mkdirSync(join(grokHome, "logs"));
  const log = join(grokHome, "logs", "unified.jsonl");
  appendFileSync(log, "");
  let frames = 0;
  const client = {
    activity: () => ({ framesIn: frames }),
    ping: async () => void (frames += 1),
  } as unknown as LeaderClient;
  return {
    watch: { client, leaderPid: PID, grokHome },
    logLine: () => appendFileSync(log, `${JSON.stringify({ pid: PID, msg: "working" })}\n`),
    close: () => rmSync(grokHome, { recursive: true, force: true }),
  };
}

test("a step whose request went unanswered while grok's log stayed quiet is sent again, and the re-send's answer is the step's", async () => {
  const r = rig();
  try {
    let sent = 0;
    const result = await awaitHandshake(
      never,
      "probe",
      r.watch,
      { idleMs: 5_000, capMs: 10_000, pollMs: 50 },
      {},
      { send: async () => `answer ${++sent}`, quietMs: 300 },
    );
    assert.equal(result, "answer 1");
    assert.equal(sent, 1);
  } finally {
    r.close();
  }
});

test("no re-send while grok's log keeps moving: the first send's late answer is the step's", async () => {
  const r = rig();
  const writer = setInterval(r.logLine, 100);
  try {
    let sent = 0;
    const late = new Promise<string>((resolve) => setTimeout(() => resolve("first"), 1_500));
    const result = await awaitHandshake(
      late,
      "probe",
      r.watch,
      { idleMs: 5_000, capMs: 10_000, pollMs: 50 },
      {},
      { send: async () => `re-sent ${++sent}`, quietMs: 400 },
    );
    assert.equal(result, "first");
    assert.equal(sent, 0);
  } finally {
    clearInterval(writer);
    r.close();
  }
});

test("re-sends are bounded: with none answered the step fails at its cap, having sent 1 + max times", async () => {
  const r = rig();
  try {
    let sent = 0;
    const wait = awaitHandshake(
      never,
      "probe",
      r.watch,
      { idleMs: 5_000, capMs: 1_500, pollMs: 50 },
      {},
      { send: () => (sent++, never), quietMs: 100, max: 2 },
    );
    await assert.rejects(
      wait,
      (error: unknown) =>
        isSeatError(error, "ACP_HANDSHAKE_FAILED") && (error.context as { sends?: number }).sends === 3,
    );
    assert.equal(sent, 2);
  } finally {
    r.close();
  }
});
