// Records how the real grok 1.0.41 trims $GROK_HOME/logs/unified.jsonl once it grows large: the size that
// triggers a trim, when grok trims (at start, when a prompt arrives, before a model request), whether the file
// keeps its inode, what is kept (how much, the newest or the oldest part, cut on a line boundary or not), and how
// often grok looks at the size (cadence).
// src/health/ relies on these facts (docs/health.md#rotation); test/fixtures/health/trim.facts.json holds them.
// Usage: npm run build && node scripts/record-health-trim.mjs
// Runs itself inside `unshare -rn` (loopback only); grok talks only to the loopback mock model. Takes ~1 minute.
// The log is pre-filled with numbered filler lines of varying length, so every kept byte can be traced to its
// place in the file as it was before the trim.
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

if (process.env.GROK_SEAT_NETNS !== "1") {
  const ns = spawnSync(
    "unshare",
    [
      "-rn",
      "sh",
      "-c",
      'ip link set lo up 2>/dev/null || true; exec "$@"',
      "sh",
      process.execPath,
      fileURLToPath(import.meta.url),
    ],
    {
      stdio: "inherit",
      env: { ...process.env, GROK_SEAT_NETNS: "1" },
    },
  );
  if (ns.error || ns.status === null) {
    console.error("record-health-trim: `unshare -rn` is required (grok must reach nothing but the loopback mock)");
    process.exit(1);
  }
  process.exit(ns.status);
}

const { createSession } = await import(join(repo, "dist/src/runtime/index.js"));
const { ensureGrokBinary } = await import(join(repo, "dist/src/grok/index.js"));
const { createSandbox, startMockModel } = await import(join(repo, "dist/src/testing.js"));

const MiB = 1024 * 1024;
const binary = (await ensureGrokBinary()).path;
const mock = await startMockModel({
  script: {
    rules: [
      { match: "fail please", replies: [{ errorStatus: 500 }] },
      { match: "slow please", replies: [{ text: "one two three four five six", chunkDelayMs: 300 }] },
    ],
  },
});

/** `bytes` of grok-shaped filler lines stamped an hour ago, numbered from `first`, of varying length. */
function filler(bytes, first = 0) {
  const ts = new Date(Date.now() - 3_600_000).toISOString();
  const lines = [];
  let size = 0;
  for (let n = first; size < bytes; n++) {
    const line = `${JSON.stringify({ ts, src: "filler", pid: 1, ver: "1.0.41", lvl: "info", msg: "filler", ctx: { n, pad: "x".repeat(100 + ((n * 37) % 300)) } })}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join("");
}

/** A sandbox whose log holds `text`, and a watcher that notes every shrink or replacement of the log. */
function world(text) {
  const sandbox = createSandbox({ modelBaseUrl: mock.baseUrl });
  const log = join(sandbox.grokHome, "logs", "unified.jsonl");
  mkdirSync(dirname(log), { recursive: true });
  writeFileSync(log, text);
  const t0 = Date.now();
  const events = [];
  let last = statSync(log);
  const timer = setInterval(() => {
    try {
      const now = statSync(log);
      if (now.ino !== last.ino || now.size < last.size)
        events.push({ atMs: Date.now() - t0, from: last.size, to: now.size, sameInode: now.ino === last.ino });
      last = now;
    } catch {
      events.push({ atMs: Date.now() - t0, removed: true });
    }
  }, 2);
  return { sandbox, log, t0, events, stop: () => clearInterval(timer) };
}

async function open(w, extra = {}) {
  const session = await createSession({
    cwd: w.sandbox.project,
    grokCliBinaryPath: binary,
    agentEnv: w.sandbox.env,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    ...extra,
  });
  if (session.state !== "ready") throw new Error(`grok did not start: ${JSON.stringify(session.diagnostics)}`);
  return session;
}

/** Threshold: does a log of exactly `size` bytes get trimmed when grok starts? */
async function startsTrimmed(size) {
  const text = `${filler(size).slice(0, size - 1)}\n`;
  const w = world(text);
  try {
    const session = await open(w);
    await new Promise((r) => setTimeout(r, 300));
    await session.dispose();
    return { size, trimmed: w.events.some((e) => e.to < e.from) };
  } finally {
    w.stop();
    w.sandbox.cleanup();
  }
}

/** What is kept: a 6 MiB log trimmed at start, traced back to the original bytes. */
async function whatIsKept() {
  const original = Buffer.from(filler(6 * MiB));
  const w = world(original);
  try {
    const session = await open(w);
    await session.dispose();
    const after = readFileSync(w.log);
    const firstLine = after.subarray(0, after.indexOf(0x0a) + 1);
    const cut = original.indexOf(firstLine);
    const trim = w.events[0];
    return {
      originalBytes: original.length,
      sameInode: trim?.sameInode ?? null,
      cutAt: cut,
      cutOnLineBoundary: cut > 0 && original[cut - 1] === 0x0a,
      keptOriginalBytes: original.length - cut,
      keptIsOriginalTail: cut >= 0 && after.subarray(0, original.length - cut).equals(original.subarray(cut)),
      // The half grok aims for, measured from the size it saw (the original plus its own first lines).
      cutMinusHalfOfOriginal: cut - Math.floor(original.length / 2),
      trimMsAfterSpawn: trim?.atMs ?? null,
    };
  } finally {
    w.stop();
    w.sandbox.cleanup();
  }
}

/** When during a session: below the threshold at start, then pushed over it between turns and during one. */
async function whenInASession() {
  const w = world(filler(4.5 * MiB));
  const marks = [];
  const mark = (what) => marks.push({ what, atMs: Date.now() - w.t0, size: statSync(w.log).size });
  try {
    const session = await open(w, { failFastAfterRetries: 3 });
    mark("ready");
    await session.prompt("fail please");
    mark("turn 1 (HTTP 500s, fail-fast 3) ended");
    appendFileSync(w.log, filler(0.75 * MiB, 1_000_000));
    mark("log padded past the threshold while idle");
    await new Promise((r) => setTimeout(r, 5_000));
    mark("5 s idle");
    mark("turn 2 sent");
    await session.prompt("slow please");
    mark("turn 2 ended");
    await session.dispose();
    const retries = readFileSync(w.log, "utf8")
      .split("\n")
      .filter((l) => l.includes("shell.turn.inference_retry")).length;
    return { marks, trims: w.events, turn1RetriesStillInLog: retries };
  } finally {
    w.stop();
    w.sandbox.cleanup();
  }
}

/**
 * How often grok checks: pushed past the threshold right after it is ready, then sent a short turn every 100 ms
 * (each writes ~12 lines); the time of each trim after the spawn and after the previous one. Padded again after
 * each trim, three times.
 */
async function cadence() {
  const w = world(filler(1 * MiB));
  const spawnedAt = Date.now();
  const trims = [];
  try {
    const session = await open(w);
    const readyMs = Date.now() - spawnedAt;
    for (let round = 0; round < 3; round++) {
      appendFileSync(w.log, filler(GROK_PAD_BYTES(statSync(w.log).size), 2_000_000 + round * 100_000));
      const seen = w.events.length;
      const deadline = Date.now() + 10_000;
      while (w.events.length === seen && Date.now() < deadline) {
        await session.prompt("say pong");
        await new Promise((r) => setTimeout(r, 100));
      }
      trims.push(w.events.length > seen ? Date.now() - spawnedAt : null);
    }
    await session.dispose();
    const at = w.events.map((e) => e.atMs);
    return { readyMsAfterSpawn: readyMs, trimsMsAfterSpawn: at, gapsMs: at.slice(1).map((t, i) => t - at[i]) };
  } finally {
    w.stop();
    w.sandbox.cleanup();
  }
}

/** Bytes to append to a log of `size` bytes to bring it to 5 MiB + 256 KiB. */
const GROK_PAD_BYTES = (size) => 5 * MiB + 256 * 1024 - size;

const threshold = [];
for (const size of [5 * MiB - 64 * 1024, 5 * MiB - 1, 5 * MiB, 5 * MiB + 1, 5 * MiB + 64 * 1024]) {
  threshold.push(await startsTrimmed(size));
  console.log(
    `threshold: a ${threshold.at(-1).size}-byte log ${threshold.at(-1).trimmed ? "was" : "was not"} trimmed at start`,
  );
}
const kept = await whatIsKept();
console.log("kept:", JSON.stringify(kept));
const checks = await cadence();
console.log("cadence:", JSON.stringify(checks));
const session = await whenInASession();
for (const m of session.marks) console.log(`session: ${m.atMs} ms ${m.what} (log ${m.size} bytes)`);
for (const e of session.trims)
  console.log(`session: ${e.atMs} ms trim ${e.from} -> ${e.to} bytes, same inode: ${e.sameInode}`);
await mock.close();

const facts = {
  grok: "1.0.41",
  recordedAt: new Date().toISOString().slice(0, 10),
  threshold,
  kept,
  cadence: checks,
  session,
};
writeFileSync(join(repo, "test/fixtures/health/trim.facts.json"), `${JSON.stringify(facts, null, 2)}\n`);
console.log("wrote test/fixtures/health/trim.facts.json");
