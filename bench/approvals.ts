/*
 * P10 approval round trip (issue 16 §4): how long a held permission request waits, human time excluded — from the
 *   agent asking to the agent holding the answer — locally (a `seat run` answered from another process over its
 *   control socket) and in the fleet (a `seat worker` job answered from another process through a real redis-server).
 * Owns: benchApprovals() and its BENCHMARKS.md section. Does not own: the answering process
 *   (bench/approval-answerer.ts) or the fleet rig (test/support/fleet-rig.ts).
 * Method: the fake agent's permission scenario (a real ACP process: tool_call, pending_interaction, then
 *   session/request_permission) with FAKE_GROK_PERMISSION_LOG: the agent logs the wall time just before it sends the
 *   request and when the answer arrives; the round trip is their difference (one process, one clock). The default
 *   policy holds the call (edit needs approval). One warm-up round per path is not counted (first connections,
 *   the answer script's first load). One answering process, started first and kept warm, polls
 *   listApprovals() every POLL_MS and answers each new id with answerApproval(allow) at once (the calls behind
 *   `seat approvals` and `seat approve`; a `seat approve` process's own start — P9's CLI overhead — is not in
 *   the figure). Local: one `seat run --json` per round (no TTY: no terminal approver), one round at a time. Fleet:
 *   one worker, one job at a time; the answer crosses Redis twice (the answer's compare-and-set, then the worker's
 *   read-back every ANSWER_POLL_MS while an approval is pending).
 */
import { chmodSync, existsSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawn } from "node:child_process";
import { connectFleet } from "../src/fleet/index.js";
import { ANSWER_POLL_MS } from "../src/fleet/approvals.js";
import { FAKE_GROK_JS } from "../test/support/fake-agent.js";
import { runSeat } from "../test/support/cli.js";
import { startFleetRig } from "../test/support/fleet-rig.js";
import { fmt, percentile, table } from "./report.js";

/** How often the answering process lists approvals (ms). */
export const POLL_MS = 5;

/** One path's round trips (ms). */
export interface RoundTrips {
  n: number;
  p50: number;
  p99: number;
  max: number;
  /** Agent asked → listed by the answering process (p50, ms). */
  seenP50: number;
  samples: number[];
}

/** P10's result. */
export interface ApprovalsBenchResult {
  local: RoundTrips;
  fleet: RoundTrips;
  pollMs: number;
  fleetAnswerPollMs: number;
}

const ANSWERER_JS = fileURLToPath(new URL("./approval-answerer.js", import.meta.url));

/** A `grok` that plays the permission scenario and logs each request's ask and answer. */
function permissionAgent(dir: string, log: string): string {
  const path = join(dir, "grok-permission");
  writeFileSync(
    path,
    `#!/bin/sh\nFAKE_GROK_SCENARIO=permission FAKE_GROK_PERMISSION_LOG=${JSON.stringify(log)} exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_GROK_JS)} "$@"\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

/** Starts the answering process for `count` approvals; resolves its lines once it exits. */
function startAnswerer(
  env: NodeJS.ProcessEnv,
  count: number,
  redis?: string,
): Promise<Array<{ seenAt: number; askedAt: string }>> {
  const child = spawn(
    process.execPath,
    [ANSWERER_JS, "--count", String(count), "--poll-ms", String(POLL_MS), ...(redis ? ["--redis", redis] : [])],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`the answering process exited ${code}: ${err}`));
      else
        resolve(
          out
            .trim()
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { seenAt: number; askedAt: string }),
        );
    });
  });
}

/** Round trips from the agent's log: the k-th `asked` ↔ the k-th `answered`; the first (warm-up) is not counted. */
function roundTrips(log: string, seen: Array<{ seenAt: number }>): RoundTrips {
  const lines = (existsSync(log) ? readFileSync(log, "utf8") : "")
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split("\t"));
  const asked = lines.filter((l) => l[0] === "asked").map((l) => Number(l[2]));
  const answered = lines.filter((l) => l[0] === "answered").map((l) => Number(l[2]));
  if (asked.length !== answered.length)
    throw new Error(`${asked.length} permission requests asked, ${answered.length} answered`);
  const samples = asked.map((at, k) => answered[k]! - at).slice(1);
  const seenSamples = seen.map((s, k) => s.seenAt - (asked[k] ?? s.seenAt)).slice(1);
  return {
    n: samples.length,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: Math.max(0, ...samples),
    seenP50: percentile(seenSamples, 50),
    samples,
  };
}

async function benchLocal(rounds: number): Promise<RoundTrips> {
  const root = mkdtempSync(join(tmpdir(), "gs-bench-approvals-"));
  try {
    const log = join(root, "permissions.log");
    const agent = permissionAgent(root, log);
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, GROK_SEAT_HOME: join(root, "seat-home") };
    const answers = startAnswerer(env, rounds + 1);
    for (let i = 0; i <= rounds; i += 1) {
      const run = await runSeat(["run", "--json", "--grok", agent, "--cwd", root, `p10 round ${i}`], {
        env,
        cwd: root,
      });
      if (run.code !== 0 || !run.stdout.includes('"decision":"allow"'))
        throw new Error(`seat run round ${i} exited ${run.code}: ${run.stdout.slice(-800)} ${run.stderr.slice(-800)}`);
    }
    return roundTrips(log, await answers);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function benchFleetRoundTrips(rounds: number): Promise<RoundTrips> {
  const rig = await startFleetRig();
  const log = join(rig.root, "permissions.log");
  const agent = permissionAgent(rig.root, log);
  const client = await connectFleet(rig.redis.url);
  try {
    await rig.startWorker("p10", { env: { GROK_BIN: agent } });
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: join(rig.root, "elsewhere"),
      GROK_SEAT_HOME: join(rig.root, "elsewhere", "seat-home"),
    };
    const answers = startAnswerer(env, rounds + 1, rig.redis.url);
    for (let i = 0; i <= rounds; i += 1) {
      const result = await (await client.enqueue({ prompt: `p10 fleet round ${i}` })).result();
      if (result.status !== "completed") throw new Error(`fleet round ${i} ended ${result.status}`);
    }
    return roundTrips(log, await answers);
  } finally {
    await client.close();
    await rig.close();
  }
}

/** Runs P10: `rounds` approvals locally, then `rounds` in the fleet (each after one uncounted warm-up round). */
export async function benchApprovals({ rounds = 30 }: { rounds?: number } = {}): Promise<ApprovalsBenchResult> {
  const local = await benchLocal(rounds);
  const fleet = await benchFleetRoundTrips(rounds);
  return { local, fleet, pollMs: POLL_MS, fleetAnswerPollMs: ANSWER_POLL_MS };
}

/** P10's section of BENCHMARKS.md. */
export function approvalsSection(r: ApprovalsBenchResult): {
  title: string;
  body: string;
  goals: Array<{ goal: string; met: boolean | undefined; measured: string }>;
} {
  const row = (path: string, t: RoundTrips) => [path, String(t.n), fmt(t.seenP50), fmt(t.p50), fmt(t.p99), fmt(t.max)];
  return {
    title: `P10 approval round trip: the agent asks → listed in another process → answered → the agent has the answer (${r.local.n} local, ${r.fleet.n} fleet)`,
    body: [
      table(
        ["path", "n", "asked → listed p50 (ms)", "round trip p50 (ms)", "p99 (ms)", "max (ms)"],
        [
          row("local: `seat run` ← control socket ← answering process", r.local),
          row("fleet: `seat worker` job ← Redis ← answering process", r.fleet),
        ],
      ),
      "",
      `The answering process lists every ${r.pollMs} ms; the worker reads answers back every ${r.fleetAnswerPollMs} ms while an approval is pending.`,
      `Percentiles are nearest-rank over n samples${r.local.n < 100 ? `; with n = ${r.local.n} the p99 is the maximum` : ""}.`,
    ].join("\n"),
    goals: [
      {
        goal: "local approval round trip p99 ≤ 50 ms",
        met: r.local.p99 <= 50,
        measured: `p50 ${fmt(r.local.p50)} ms, p99 ${fmt(r.local.p99)} ms`,
      },
      {
        goal: "fleet approval round trip p99 ≤ 100 ms",
        met: r.fleet.p99 <= 100,
        measured: `p50 ${fmt(r.fleet.p50)} ms, p99 ${fmt(r.fleet.p99)} ms`,
      },
    ],
  };
}
