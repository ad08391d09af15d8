/*
 * P4 delivery-fence durable append: Journal.fence() (src/journal: WAL, synchronous=FULL, duplicate check,
 *   sha256, read-back) versus a bare better-sqlite3 INSERT into the same kind of file with the same pragmas.
 * Owns: benchFence().
 * Does not own: the journal (src/journal) or reporting (run.ts).
 * Method: both run in the same temp dir on the same disk, interleaved in blocks, after a warm-up.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { openJournal } from "../src/journal/index.js";
import { median, percentile } from "./report.js";

/** p50/p99 of one path in ms. */
export interface FenceLatency {
  p50Ms: number;
  p99Ms: number;
}

/** The P4 result. */
export interface FenceBenchResult {
  iterations: number;
  fence: FenceLatency;
  bareInsert: FenceLatency;
  /** fence p50 / bare p50 and fence p99 / bare p99. */
  ratioP50: number;
  ratioP99: number;
}

/** Runs P4: `iterations` fenced deliveries and as many bare inserts. */
export async function benchFence({ iterations = 500 }: { iterations?: number } = {}): Promise<FenceBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), "grok-seat-bench-fence-"));
  const journal = openJournal(join(dir, "journal.sqlite"));
  const bare = new Database(join(dir, "bare.sqlite"));
  bare.pragma("journal_mode = WAL");
  bare.pragma("synchronous = FULL");
  bare.exec("CREATE TABLE rows (id TEXT PRIMARY KEY, text TEXT NOT NULL, at TEXT NOT NULL)");
  const insert = bare.prepare("INSERT INTO rows (id, text, at) VALUES (?, ?, ?)");
  journal.createSeat({ seatId: "bench-seat", sessionId: "bench-session", socketPath: "/nonexistent/leader.sock" });
  const text = "deliver this message to the seat, please: ".repeat(4);
  const fenceMs: number[] = [];
  const bareMs: number[] = [];
  const block = 25;
  try {
    const warmup = 20;
    for (let i = -warmup; i < iterations; i += block) {
      for (let j = 0; j < block; j++) {
        const start = performance.now();
        journal.fence({ seatId: "bench-seat", promptId: `p-${i}-${j}`, text });
        if (i >= 0) fenceMs.push(performance.now() - start);
      }
      for (let j = 0; j < block; j++) {
        const start = performance.now();
        insert.run(`p-${i}-${j}`, text, new Date().toISOString());
        if (i >= 0) bareMs.push(performance.now() - start);
      }
    }
  } finally {
    journal.close();
    bare.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const fence = { p50Ms: median(fenceMs), p99Ms: percentile(fenceMs, 99) };
  const bareInsert = { p50Ms: median(bareMs), p99Ms: percentile(bareMs, 99) };
  return {
    iterations: fenceMs.length,
    fence,
    bareInsert,
    ratioP50: fence.p50Ms / bareInsert.p50Ms,
    ratioP99: fence.p99Ms / bareInsert.p99Ms,
  };
}
