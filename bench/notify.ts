/*
 * P14 notification latency (issue 25 §4): from a state change a person must hear of to a loopback webhook receiver
 *   holding the signed, schema-valid notification, on the real grok 1.0.41 against the mock model.
 * Owns: benchNotify() and its BENCHMARKS.md section. Does not own: the receiver (test/support/notify-receiver.ts,
 *   which verifies signature and schema) or the notifier (src/notify/).
 * Method: library path: one real createSession, its onEvent wrapped so the wall time (Date.now()) is noted the
 *   moment grok-seat emits the event that becomes a notification (`approval_asked` → `waiting`, the `state` idle
 *   after a turn → `done`); a proxy of the notifier ties that time to the notification's id; the sample ends when
 *   the receiver has read the whole request body (its `at`, Date.now() in the same process, so one clock, 1 ms
 *   resolution). Each turn asks for one held shell command, answered "allow" by a local approver after
 *   APPROVER_DELAY_MS, so every turn gives one `waiting` and one `done`. Coalescing is off (coalesceMs 0): the
 *   figure is the delivery path; coalescing is a deliberate hold of at most one window per target.
 *   CLI path: one `seat run --notify hook --json` process per round with the target in the config file; the
 *   sample runs from the `state` idle event's `since` printed in its --json output (when the turn ended) to the
 *   receiver's arrival (two processes, one machine clock).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SeatEvent } from "../src/acp/index.js";
import { createNotifier, notifyFromEvents, type Notifier } from "../src/notify/index.js";
import { NOTIFY_EVENTS, type NotifyTarget } from "../src/notify-config/index.js";
import { createPermissionGate, parsePolicyFlags } from "../src/permissions/index.js";
import { createSession } from "../src/runtime/index.js";
import { runSeat } from "../test/support/cli.js";
import { startLiveRig, type LiveRig } from "../test/support/live-rig.js";
import { startNotifyReceiver, type NotifyReceiver } from "../test/support/notify-receiver.js";
import type { FleetNotifyResult } from "./notify-fleet.js";
import { fmt, percentile, table } from "./report.js";

/** How long the local approver waits before it allows (ms), so `waiting` and `done` are apart. */
export const APPROVER_DELAY_MS = 20;
const SECRET = "p14-bench-secret-0123456789abcdef";
const COMMAND = "echo p14 >> p14.log";

/** One path's latencies (ms). */
export interface NotifyLatencies {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Per event name: how many samples. */
  byEvent: Record<string, number>;
  samples: number[];
}

/** P14's result. */
export interface NotifyBenchResult {
  library: NotifyLatencies;
  cli: NotifyLatencies;
  turns: number;
  cliRounds: number;
  /** CLI path: the part from the state change to the notification's `time` (handed to the notifier), p50 and max (ms). */
  cliToNotify?: { p50: number; max: number };
  /** Requests the receiver refused (bad signature or schema) or did not get; must be 0. */
  refused: number;
  missing: number;
  skipped?: string;
  /** The fleet case (bench/notify-fleet.ts), when it ran. */
  fleet?: FleetNotifyResult;
}

function summarise(samples: Array<{ event: string; ms: number }>): NotifyLatencies {
  const ms = samples.map((s) => s.ms);
  const byEvent: Record<string, number> = {};
  for (const s of samples) byEvent[s.event] = (byEvent[s.event] ?? 0) + 1;
  return {
    n: ms.length,
    p50: percentile(ms, 50),
    p90: percentile(ms, 90),
    p99: percentile(ms, 99),
    max: Math.max(0, ...ms),
    byEvent,
    samples: ms,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function arrival(receiver: NotifyReceiver, id: string, timeoutMs = 10_000): Promise<number | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = receiver.requests.find((q) => q.refused === undefined && q.body.includes(`"id":"${id}"`));
    if (hit) return hit.at;
    if (Date.now() > deadline) return undefined;
    await sleep(5);
  }
}

async function benchLibrary(
  rig: LiveRig,
  receiver: NotifyReceiver,
  turns: number,
): Promise<{ samples: Array<{ event: string; ms: number }>; missing: number }> {
  const target: NotifyTarget = {
    name: "hook",
    type: "webhook",
    url: `${receiver.url}/hook`,
    secret: SECRET,
    events: NOTIFY_EVENTS,
  };
  const notifier = createNotifier({ targets: [target], coalesceMs: 0 });
  const emitted: Array<{ id: string; event: string; at: number }> = [];
  let eventAt = 0;
  // The proxy ties the time the SeatEvent was emitted to the notification it became.
  const proxy: Notifier = {
    notify(e) {
      emitted.push({ id: e.id, event: e.event, at: eventAt });
      notifier.notify(e);
    },
    close: (grace) => notifier.close(grace),
  };
  const hook = notifyFromEvents(proxy, { subject: { kind: "run", id: "p14" } });
  const session = await createSession({
    ...rig.sessionOptions,
    permissions: createPermissionGate({ policy: parsePolicyFlags({ ask: ["execute"] }) }),
    approvals: { timeoutMs: 60_000, local: async () => (await sleep(APPROVER_DELAY_MS), "allow" as const) },
    callbacks: {
      onEvent: (event: SeatEvent) => {
        eventAt = Date.now();
        hook(event);
      },
    },
    killGraceMs: 500,
  });
  try {
    if (session.state !== "ready")
      throw new Error(`P14: the session did not start: ${JSON.stringify(session.diagnostics)}`);
    // One uncounted warm-up turn (first connection to the receiver, first tool run).
    for (let i = 0; i <= turns; i += 1) {
      const before = emitted.length;
      const result = await session.prompt(`p14 held turn ${i}`);
      if (result.stopReason !== "end_turn") throw new Error(`P14 turn ${i}: ${JSON.stringify(result)}`);
      // The `done` is emitted as the turn ends; wait for this turn's notifications before the next one.
      for (let k = 0; k < 100 && emitted.length < before + 2; k += 1) await sleep(5);
      if (i === 0) emitted.splice(0, emitted.length);
    }
  } finally {
    await session.dispose();
  }
  const samples: Array<{ event: string; ms: number }> = [];
  let missing = 0;
  for (const e of emitted) {
    const at = await arrival(receiver, e.id);
    if (at === undefined) missing += 1;
    else samples.push({ event: e.event, ms: at - e.at });
  }
  await notifier.close(5_000);
  return { samples, missing };
}

async function benchCli(
  rig: LiveRig,
  receiver: NotifyReceiver,
  rounds: number,
): Promise<{ samples: Array<{ event: string; ms: number }>; toNotify: number[]; missing: number }> {
  const config = join(rig.sandbox.root, "xdg");
  mkdirSync(join(config, "grok-seat"), { recursive: true });
  writeFileSync(
    join(config, "grok-seat", "config.json"),
    JSON.stringify({
      notify: {
        targets: { hook: { type: "webhook", url: `${receiver.url}/hook`, secretEnv: "HOOK_SECRET", events: ["done"] } },
      },
    }),
  );
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: rig.sandbox.home,
    GROK_HOME: rig.sandbox.grokHome,
    GROK_BIN: rig.binary,
    GROK_SEAT_HOME: join(rig.sandbox.root, "seat-home"),
    XDG_CONFIG_HOME: config,
    HOOK_SECRET: SECRET,
    NO_COLOR: "1",
  };
  const samples: Array<{ event: string; ms: number }> = [];
  const toNotify: number[] = [];
  let missing = 0;
  for (let i = 0; i <= rounds; i += 1) {
    const before = receiver.requests.length;
    const run = await runSeat(["run", "--notify", "hook", "--json", `p14 plain turn ${i}`], {
      env,
      cwd: rig.sandbox.project,
    });
    if (run.code !== 0)
      throw new Error(
        `P14 seat run round ${i} exited ${run.code}: ${run.stdout.slice(-600)} ${run.stderr.slice(-600)}`,
      );
    const lines = run.stdout
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { type: string; state?: string; previous?: string; since?: string });
    const idle = lines.find((l) => l.type === "state" && l.state === "idle" && l.previous === "working");
    if (idle?.since === undefined)
      throw new Error(`P14 seat run round ${i}: no state idle event in its --json output: ${run.stdout.slice(-600)}`);
    const got = receiver.requests.slice(before).find((q) => q.refused === undefined);
    if (i === 0) continue;
    if (got === undefined) missing += 1;
    else {
      samples.push({ event: "done", ms: got.at - Date.parse(idle.since) });
      toNotify.push(Date.parse((JSON.parse(got.body) as { time: string }).time) - Date.parse(idle.since));
    }
  }
  return { samples, toNotify, missing };
}

/** Runs P14: `turns` held turns through the library (2 notifications each), then `cliRounds` `seat run`s. */
export async function benchNotify({
  turns = 100,
  cliRounds = 20,
}: {
  turns?: number;
  cliRounds?: number;
} = {}): Promise<NotifyBenchResult> {
  const rig = await startLiveRig({
    rules: [
      {
        match: "p14 held turn",
        replies: [
          { toolCalls: [{ name: "run_terminal_command", arguments: { command: COMMAND, description: "p14" } }] },
          { text: "held turn done" },
        ],
      },
    ],
    fallback: { text: "plain turn done" },
  });
  const empty = summarise([]);
  if (typeof rig === "string")
    return { library: empty, cli: empty, turns: 0, cliRounds: 0, refused: 0, missing: 0, skipped: rig };
  const receiver = await startNotifyReceiver(SECRET);
  try {
    const library = await benchLibrary(rig, receiver, turns);
    const cli = await benchCli(rig, receiver, cliRounds);
    const refused = receiver.requests.filter((q) => q.refused !== undefined).length;
    return {
      library: summarise(library.samples),
      cli: summarise(cli.samples),
      turns,
      cliRounds,
      cliToNotify: { p50: percentile(cli.toNotify, 50), max: Math.max(0, ...cli.toNotify) },
      refused,
      missing: library.missing + cli.missing,
    };
  } finally {
    await receiver.close();
    await rig.close();
  }
}

/** P14's section of BENCHMARKS.md. */
export function notifySection(r: NotifyBenchResult): {
  title: string;
  body: string;
  goals: Array<{ goal: string; met: boolean | undefined; measured: string }>;
} {
  const title =
    "P14 notification latency: the state change → a loopback webhook receiver holds the signed notification";
  if (r.skipped)
    return {
      title,
      body: `Skipped: ${r.skipped}.`,
      goals: [{ goal: "notification p99 ≤ 250 ms on loopback", met: undefined, measured: "skipped" }],
    };
  const events = (l: NotifyLatencies) =>
    Object.entries(l.byEvent)
      .map(([k, v]) => `${v} ${k}`)
      .join(", ");
  const row = (path: string, l: NotifyLatencies) => [
    path,
    String(l.n),
    events(l),
    fmt(l.p50),
    fmt(l.p90),
    fmt(l.p99),
    fmt(l.max),
  ];
  const clean = r.refused === 0 && r.missing === 0;
  return {
    title: `${title} (${r.library.n} library, ${r.cli.n} \`seat run\`)`,
    body: [
      table(
        ["path", "n", "events", "p50 (ms)", "p90 (ms)", "p99 (ms)", "max (ms)"],
        [
          row("library: createSession onEvent → notifyFromEvents → createNotifier (coalescing off)", r.library),
          row("CLI: `seat run --notify hook --json`, one process per turn", r.cli),
          ...(r.fleet && !r.fleet.skipped
            ? [
                [
                  "fleet: a `seat worker` job's recorded end (`ended_at`) → receiver, real redis-server (claim `SET NX`), one target per job",
                  String(r.fleet.n),
                  `${r.fleet.n} done`,
                  fmt(r.fleet.p50),
                  fmt(r.fleet.p90),
                  fmt(r.fleet.p99),
                  fmt(r.fleet.max),
                ],
              ]
            : []),
        ],
      ),
      ...(r.fleet
        ? [
            "",
            r.fleet.skipped
              ? `Fleet case skipped: ${r.fleet.skipped}.`
              : `Fleet case: refused ${r.fleet.refused}, never arrived ${r.fleet.missing}. One target per job, so the worker's coalescing window (one message per target per 10 s) holds nothing; the clock runs from the job record's \`ended_at\` (the worker's Date.now() just before the end's compare-and-set) to the receiver, two processes on one machine clock.`,
          ]
        : []),
      "",
      `Refused by the receiver (signature or schema): ${r.refused}; never arrived: ${r.missing}. Percentiles are nearest-rank` +
        `${r.cli.n < 100 ? `; with n = ${r.cli.n} the CLI p99 is its maximum` : ""}. Clocks: Date.now() (1 ms resolution);` +
        " the library path in one process, the CLI path from the printed `since` of the `state` idle event to the receiver in the bench process.",
      ...(r.cliToNotify
        ? [
            "",
            `CLI path, state change → notification handed to the notifier: p50 ${fmt(r.cliToNotify.p50)} ms, max ${fmt(r.cliToNotify.max)} ms; the rest is the delivery from a fresh \`seat run\` process: its first connection to the receiver (the notifier loads Node's HTTP client when it is made, since 341763b; before that the first \`fetch\` loaded it on the turn's path: on 2ee42cd this path measured p50 110 ms, max 325 ms).`,
          ]
        : []),
    ].join("\n"),
    goals: [
      {
        goal: "notification p99 ≤ 250 ms on loopback (library, real grok)",
        met: clean && r.library.n >= 100 ? r.library.p99 <= 250 : clean ? undefined : false,
        measured: `p50 ${fmt(r.library.p50)} ms, p99 ${fmt(r.library.p99)} ms (n = ${r.library.n})${clean ? "" : `, ${r.refused} refused, ${r.missing} missing`}`,
      },
      {
        goal: "notification p99 ≤ 250 ms on loopback (`seat run --notify`)",
        met: clean && r.cli.n > 0 ? r.cli.p99 <= 250 : clean ? undefined : false,
        measured: `p50 ${fmt(r.cli.p50)} ms, max ${fmt(r.cli.max)} ms (n = ${r.cli.n})`,
      },
      ...(r.fleet
        ? [
            {
              goal: "notification p99 ≤ 250 ms on loopback (fleet: worker state change → receiver, real Redis)",
              met:
                r.fleet.skipped !== undefined
                  ? undefined
                  : r.fleet.refused > 0 || r.fleet.missing > 0
                    ? false
                    : r.fleet.n > 0
                      ? r.fleet.p99 <= 250
                      : undefined,
              measured: r.fleet.skipped
                ? "skipped"
                : `p50 ${fmt(r.fleet.p50)} ms, p99 ${fmt(r.fleet.p99)} ms (n = ${r.fleet.n})${r.fleet.refused || r.fleet.missing ? `, ${r.fleet.refused} refused, ${r.fleet.missing} missing` : ""}`,
            },
          ]
        : []),
    ],
  };
}
