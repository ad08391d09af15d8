/*
 * Seat benchmark: prompt → consumed latency through a visible seat (fence + dispatch + queue evidence
 *   recorded in the journal) versus a bare leader client on the same leader in the same run, plus the
 *   p50 of one durable fence append.
 * Owns: benchSeat(), called by bench/run.ts (`npm run bench`).
 * Does not own: reporting or thresholds (bench/run.ts). Uses the real grok binary + mock model when
 *   `grokBinary` is given, else the fake TUI fixture (dist/test/integration/seat/seat-fake-tui.js) in tmux.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ACP, connectAcp } from "../src/acp/index.js";
import { openJournal } from "../src/journal/index.js";
import { connectLeader } from "../src/leader/index.js";
import { TmuxBackend } from "../src/mux/index.js";
import { hireSeat } from "../src/seat/index.js";

/** Latency percentiles of one path, in milliseconds, with the number of samples they come from. */
export interface LatencySummary {
  n: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
}

/** The result of benchSeat. */
export interface SeatBenchResult {
  iterations: number;
  seat: LatencySummary;
  bareLeader: LatencySummary;
  fenceAppendP50Ms: number;
  fenceSamples: number;
  /** How the leader re-proofs before each dispatch were decided (from the seal, or full). */
  dispatchProofs: { seal: number; full: number };
  /** Wall time of the whole benchmark (hire, deliveries, release). */
  wallMs: number;
}

function summary(samples: number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]! : 0;
  return { n: samples.length, p50Ms: at(50), p90Ms: at(90), p99Ms: at(99) };
}

/** Options of benchSeat: a real grok binary (with an env whose GROK_HOME points at a mock), or the fake TUI. */
export interface SeatBenchOptions {
  iterations?: number;
  grokBinary?: string;
  env?: Record<string, string>;
  versionFloor?: string;
}

/** Measures prompt→consumed through the seat and through a bare leader client, and fence append p50. */
export async function benchSeat(options: SeatBenchOptions = {}): Promise<SeatBenchResult> {
  const iterations = options.iterations ?? 200;
  const started = performance.now();
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gs-bench-")));
  const home = join(root, "h");
  const project = join(root, "p");
  mkdirSync(join(home, ".grok"), { recursive: true, mode: 0o700 });
  mkdirSync(project, { mode: 0o700 });
  const tmux = new TmuxBackend({ socketName: `gs-bench-${randomBytes(4).toString("hex")}` });
  const journal = openJournal(join(root, "seats.db"));
  const fake = join(process.cwd(), "dist", "test", "integration", "seat", "seat-fake-tui.js");
  try {
    // Fence append p50: one durable (synchronous=FULL) insert per delivery.
    journal.createSeat({ seatId: "bench", sessionId: randomUUID(), socketPath: join(root, "s") });
    const fences: number[] = [];
    for (let i = 0; i < Math.max(50, iterations); i++) {
      const t0 = performance.now();
      journal.fence({ seatId: "bench", promptId: `fence-${i}`, text: "brief" });
      fences.push(performance.now() - t0);
    }
    const seat = await hireSeat({
      grokBinary: options.grokBinary ?? process.execPath,
      binaryArgs: options.grokBinary ? [] : [fake],
      cwd: project,
      mux: "tmux",
      backend: tmux,
      journal,
      env: options.env ?? { HOME: home, GROK_HOME: join(home, ".grok"), PATH: process.env.PATH ?? "/usr/bin:/bin" },
      versionFloor: options.versionFloor ?? "1.0.41",
    });
    const viaSeat: number[] = [];
    const bare: number[] = [];
    const client = await connectLeader({
      socketPath: seat.parts.leader.socketPath,
      clientType: "grok-seat-bench",
      timeoutMs: 10_000,
    });
    const waiting = new Map<string, () => void>();
    const peer = await connectAcp(
      client.stream,
      {
        onSessionUpdate: () => {},
        onExtNotification: (method, params) => {
          const p = params as { entries?: Array<{ id?: string }>; runningPromptId?: string } | null;
          if (!method.endsWith("queue/changed") || !p) return;
          for (const id of [...(p.entries ?? []).map((e) => e.id), p.runningPromptId]) if (id) waiting.get(id)?.();
        },
        onPermissionRequest: () => new Promise(() => {}),
      },
      "grok-seat-bench",
    );
    await peer.request(ACP.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    for (let i = 0; i < iterations; i++) {
      const t0 = performance.now();
      const d = await seat.deliver(`bench brief ${i}`);
      await seat.waitFor(d.promptId, ["consumed", "completed"], 30_000);
      viaSeat.push(performance.now() - t0);
      await seat.waitFor(d.promptId, ["completed"], 30_000);
      const promptId = `bare-${i}-${randomUUID()}`;
      const t1 = performance.now();
      const consumed = new Promise<void>((resolve) => waiting.set(promptId, resolve));
      const result = peer.request(ACP.agent.session.prompt, {
        sessionId: seat.sessionId,
        prompt: [{ type: "text", text: `bare brief ${i}` }],
        _meta: { promptId },
      });
      await consumed;
      bare.push(performance.now() - t1);
      waiting.delete(promptId);
      await result.catch(() => undefined);
    }
    peer.close();
    await client.close();
    const dispatchProofs = seat.dispatchProofs;
    await seat.release({ closePane: true });
    return {
      iterations,
      seat: summary(viaSeat),
      bareLeader: summary(bare),
      fenceAppendP50Ms: summary(fences).p50Ms,
      fenceSamples: fences.length,
      dispatchProofs,
      wallMs: performance.now() - started,
    };
  } finally {
    for (const s of journal.listSeats({ includeReleased: true })) {
      for (const pid of [s.tuiPid, s.leaderPid])
        if (pid)
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            /* gone */
          }
      if (s.seatId !== "bench") rmSync(join(s.socketPath, ".."), { recursive: true, force: true });
    }
    journal.close();
    await tmux.killServer().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }
}
