/*
 * `seat ps` on many live items (issue 16 §2, goal: 50 live items answered in ≤ 200 ms).
 * Owns: making N live named sessions in a private seat home — each leased by this process (pid + kernel birth,
 *   so its holder proves alive) with its own control socket answering `state` — and timing `seat ps --json`
 *   as a user runs it (a fresh process) against the same command on an empty home (the baseline: node start
 *   and module loading), plus the in-process listing alone.
 * Does not own: the listing (src/listing/listing.ts).
 * Usage: node dist/bench/ps.js [--items=50] [--rounds=15]; prints a table and writes bench/results/ps.json.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { listLive } from "../src/listing/listing.js";
import { openStore } from "../src/sessions/index.js";
import { acquireLease, type HeldLease } from "../src/session-store/index.js";
import {
  describeControlState,
  planControlSocket,
  startControlServer,
  type ControlServer,
} from "../src/control/index.js";
import { fmt, parseFlags, percentile, ratio, table, writeResult } from "./report.js";

const SEAT_MAIN = fileURLToPath(new URL("../cli/seat.js", import.meta.url));

function timeSeatPs(home: string): { ms: number; lines: number } {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [SEAT_MAIN, "ps", "--json"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GROK_SEAT_HOME: home },
    encoding: "utf8",
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`seat ps failed: ${r.stderr}`);
  return { ms, lines: r.stdout.trim() === "" ? 0 : r.stdout.trim().split("\n").length };
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const items = Number(flags.get("items") ?? 50);
  const rounds = Number(flags.get("rounds") ?? 15);
  const root = mkdtempSync(join(tmpdir(), "gs-ps-"));
  const home = join(root, "h");
  const empty = join(root, "e");
  const store = openStore(home);
  openStore(empty).close();
  const leases: HeldLease[] = [];
  const servers: ControlServer[] = [];
  try {
    const place = planControlSocket(home);
    for (let i = 0; i < items; i++) {
      const record = store.ensure({ name: `s${i}`, scope: "global", agent: "grok", cwd: root, model: null });
      const lease = await acquireLease(store, record);
      leases.push(lease);
      const since = new Date().toISOString();
      const server = await startControlServer(place, {
        cancel: async () => ({}),
        state: describeControlState(
          {
            id: `s${i}`,
            attention: () => ({
              state: i % 5 === 0 ? "waiting" : "working",
              since,
              ...(i % 5 === 0 ? { waitingOn: "approval" as const } : {}),
            }),
          },
          { kind: "named-session", name: `s${i}`, agent: "grok", cwd: root },
        ),
      });
      servers.push(server);
      store.setControlSocket(record.row, lease.holder.pid, server.path);
    }
    // The 50-item run must not block this process's event loop (it serves the control sockets `seat ps` asks),
    // so it is timed with an async spawn; the empty-home baseline asks no socket and may block.
    const full: number[] = [];
    const base: number[] = [];
    const inProcess: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = process.hrtime.bigint();
      const listed = await listLive({ home });
      inProcess.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (listed.length !== items) throw new Error(`listed ${listed.length} of ${items}`);
      base.push(timeSeatPs(empty).ms);
      full.push(await timeSeatPsAsync(home, items));
    }
    const result = {
      items,
      rounds,
      seatPs: { p50Ms: percentile(full, 50), p99Ms: percentile(full, 99) },
      emptyHome: { p50Ms: percentile(base, 50), p99Ms: percentile(base, 99) },
      listLive: { p50Ms: percentile(inProcess, 50), p99Ms: percentile(inProcess, 99) },
    };
    console.log(
      table(
        ["what", "p50 ms", "p99 ms", "vs empty home (p50)"],
        [
          [
            `seat ps --json, ${items} live named sessions (fresh process)`,
            fmt(result.seatPs.p50Ms),
            fmt(result.seatPs.p99Ms),
            ratio(result.seatPs.p50Ms / result.emptyHome.p50Ms),
          ],
          [
            "seat ps --json, empty seat home (baseline)",
            fmt(result.emptyHome.p50Ms),
            fmt(result.emptyHome.p99Ms),
            ratio(1),
          ],
          [`listLive() in process, ${items} items`, fmt(result.listLive.p50Ms), fmt(result.listLive.p99Ms), "-"],
        ],
      ),
    );
    const met = (ms: number) => (ms <= 200 ? "met" : "not met");
    console.log(
      `goal: ${items} live items in ≤ 200 ms: ${met(result.seatPs.p50Ms)} at p50 (${fmt(result.seatPs.p50Ms)} ms), ${met(result.seatPs.p99Ms)} at p99 (${fmt(result.seatPs.p99Ms)} ms)`,
    );
    if (flags.get("quick") === undefined) console.log(`wrote ${writeResult("ps", result)}`);
  } finally {
    for (const server of servers) await server.close();
    for (const lease of leases) lease.release();
    store.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Times `seat ps --json` in a child while this process keeps serving the control sockets. */
function timeSeatPsAsync(home: string, expected: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [SEAT_MAIN, "ps", "--json"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GROK_SEAT_HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("close", (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const lines = out.trim() === "" ? 0 : out.trim().split("\n").length;
      if (code !== 0 || lines !== expected)
        reject(new Error(`seat ps: exit ${code}, ${lines} of ${expected} items: ${err}`));
      else resolve(ms);
    });
  });
}

await main();
