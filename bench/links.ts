/*
 * P16 approval by link (issue 25 §4): from the confirm POST of a notification's Approve link to the approved tool
 *   starting, on the real grok 1.0.41 against the mock model, the person's own time excluded.
 * Owns: benchLinks() and its BENCHMARKS.md section. Does not own: the board (src/board/), the links
 *   (src/approval-links/links.ts), the receiver (test/support/notify-receiver.ts, which verifies signature and schema).
 * Method: the approved command is `date +%s%N >> p16.log`, so the tool's start is the shell's own wall clock when
 *   it runs; the sample starts (Date.now(), same machine clock) just before the confirm POST is sent. Opening the
 *   link (the GET that shows the command) is the person's time and is not counted.
 *   Library path: one createSession whose approvals are held in this process, a board in this process serving
 *   the seat home's links with listApprovals/answerApproval as its source; each turn's link is made by
 *   approvalLinks() the moment `approval_asked` is emitted. CLI path: a `seat board` process and one
 *   `seat run --notify hook --json` process per round; the link is the one in the signed webhook the receiver
 *   holds, and the board answers the run over its control socket (what a phone does).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PendingApproval, SeatEvent } from "../src/acp/index.js";
import { answerApproval, listApprovals } from "../src/supervision/index.js";
import { approvalLinks } from "../src/approval-links/links.js";
import { startBoard } from "../src/board/server.js";
import { createPermissionGate, parsePolicyFlags } from "../src/permissions/index.js";
import { createSession } from "../src/runtime/index.js";
import { startSeat } from "../test/support/cli.js";
import { startLiveRig, type LiveRig } from "../test/support/live-rig.js";
import { startNotifyReceiver, type NotifyReceiver } from "../test/support/notify-receiver.js";
import { fmt, percentile, table } from "./report.js";

const SECRET = "p16-bench-secret-0123456789abcdef";
const COMMAND = "date +%s%N >> p16.log";

/** One path's latencies (ms). */
export interface LinkLatencies {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  samples: number[];
}

/** P16's result. */
export interface LinksBenchResult {
  library: LinkLatencies;
  /** Library path: the board's share, from the confirm POST to the answer handed to the session's queue (ms). */
  libraryBoard?: LinkLatencies;
  /** The floor without any board: a local approver's answer → the tool starts (grok's own share, ms). */
  floor?: LinkLatencies;
  cli: LinkLatencies;
  /** Confirms that did not answer 200, or turns whose command did not run exactly once; must be 0. */
  failures: number;
  skipped?: string;
}

function summarise(ms: number[]): LinkLatencies {
  return {
    n: ms.length,
    p50: percentile(ms, 50),
    p90: percentile(ms, 90),
    p99: percentile(ms, 99),
    max: Math.max(0, ...ms),
    samples: ms,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`P16: timed out waiting for ${what}`);
    await sleep(1);
  }
}

/** The confirm POST as the link's own page sends it; returns the time it was sent and whether it answered. */
async function confirm(url: string): Promise<{ at: number; ok: boolean }> {
  const at = Date.now();
  const res = await fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: {
      origin: new URL(url).origin,
      "sec-fetch-site": "same-origin",
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "",
  });
  await res.arrayBuffer();
  return { at, ok: res.status === 200 };
}

/** The ms wall times the approved command wrote, one line per run. */
function toolStarts(cwd: string): number[] {
  try {
    return readFileSync(join(cwd, "p16.log"), "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => Number(BigInt(line) / 1000n) / 1000);
  } catch {
    return [];
  }
}

async function benchLibrary(
  rig: LiveRig,
  turns: number,
): Promise<{ samples: number[]; boardShare: number[]; failures: number }> {
  const home = join(rig.sandbox.root, "p16-home");
  const env = { ...process.env, GROK_SEAT_HOME: home, HOME: rig.sandbox.home };
  let answeredAt = 0;
  const board = await startBoard({
    listing: { home },
    approvals: {
      list: () => listApprovals({ env }),
      answer: async (id, a) => {
        const answered = await answerApproval(id, a, { env });
        answeredAt = Date.now();
        return answered;
      },
    },
    links: { home },
  });
  const asked: PendingApproval[] = [];
  const session = await createSession({
    ...rig.sessionOptions,
    permissions: createPermissionGate({ policy: parsePolicyFlags({ ask: ["execute"] }) }),
    approvals: { timeoutMs: 60_000 },
    callbacks: { onEvent: (event: SeatEvent) => void (event.type === "approval_asked" && asked.push(event.approval)) },
    killGraceMs: 500,
  });
  const samples: number[] = [];
  const boardShare: number[] = [];
  let failures = 0;
  try {
    if (session.state !== "ready")
      throw new Error(`P16: the session did not start: ${JSON.stringify(session.diagnostics)}`);
    // One uncounted warm-up turn (first connection to the board, first tool run).
    for (let i = 0; i <= turns; i += 1) {
      const ran = toolStarts(rig.sandbox.project).length;
      const turn = session.prompt(`p16 held turn ${i}`);
      const approval = await until("the held approval", () => asked.shift());
      const links = approvalLinks(home, approval);
      if (!links) throw new Error("P16: no links although the board runs");
      await (await fetch(links.approve_url)).text(); // the person opens the link: not counted
      const sent = await confirm(links.approve_url);
      const result = await turn;
      const starts = toolStarts(rig.sandbox.project);
      if (!sent.ok || result.stopReason !== "end_turn" || starts.length !== ran + 1) failures += 1;
      else if (i > 0) {
        samples.push(starts[starts.length - 1]! - sent.at);
        boardShare.push(answeredAt - sent.at);
      }
    }
  } finally {
    await session.dispose();
    await board.close();
  }
  return { samples, boardShare, failures };
}

/** The floor: the same turns answered by a local approver at once; from its answer to the tool starting (grok's share). */
async function benchFloor(rig: LiveRig, turns: number): Promise<number[]> {
  let answeredAt = 0;
  const session = await createSession({
    ...rig.sessionOptions,
    permissions: createPermissionGate({ policy: parsePolicyFlags({ ask: ["execute"] }) }),
    approvals: { timeoutMs: 60_000, local: async () => ((answeredAt = Date.now()), "allow" as const) },
    killGraceMs: 500,
  });
  const samples: number[] = [];
  try {
    if (session.state !== "ready")
      throw new Error(`P16: the session did not start: ${JSON.stringify(session.diagnostics)}`);
    for (let i = 0; i <= turns; i += 1) {
      const result = await session.prompt(`p16 held turn floor ${i}`);
      const starts = toolStarts(rig.sandbox.project);
      if (result.stopReason === "end_turn" && i > 0) samples.push(starts[starts.length - 1]! - answeredAt);
    }
  } finally {
    await session.dispose();
  }
  return samples;
}

async function benchCli(
  rig: LiveRig,
  receiver: NotifyReceiver,
  rounds: number,
): Promise<{ samples: number[]; failures: number }> {
  const config = join(rig.sandbox.root, "xdg-p16");
  mkdirSync(join(config, "grok-seat"), { recursive: true });
  writeFileSync(
    join(config, "grok-seat", "config.json"),
    JSON.stringify({
      notify: {
        targets: {
          hook: { type: "webhook", url: `${receiver.url}/hook`, secretEnv: "HOOK_SECRET", events: ["waiting"] },
        },
      },
    }),
  );
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: rig.sandbox.home,
    GROK_HOME: rig.sandbox.grokHome,
    GROK_BIN: rig.binary,
    GROK_SEAT_HOME: join(rig.sandbox.root, "p16-cli-home"),
    XDG_CONFIG_HOME: config,
    HOOK_SECRET: SECRET,
    NO_COLOR: "1",
  };
  const board = startSeat(["board"], { env, cwd: rig.sandbox.project });
  const samples: number[] = [];
  let failures = 0;
  try {
    await until("the board's address", () => (/board: \S+/.test(board.stdout()) ? true : undefined));
    for (let i = 0; i <= rounds; i += 1) {
      const ran = toolStarts(rig.sandbox.project).length;
      const before = receiver.requests.length;
      const run = startSeat(["run", "--notify", "hook", "--json", `p16 held turn cli ${i}`], {
        env,
        cwd: rig.sandbox.project,
      });
      const hook = await until("the waiting webhook", () =>
        receiver.requests.slice(before).find((q) => q.refused === undefined),
      );
      const url = (JSON.parse(hook.body) as { approval?: { approve_url?: string } }).approval?.approve_url;
      if (url === undefined) throw new Error(`P16: the webhook carries no approve_url: ${hook.body}`);
      await (await fetch(url)).text(); // the person opens the link: not counted
      const sent = await confirm(url);
      const ended = await run.done;
      const starts = toolStarts(rig.sandbox.project);
      if (!sent.ok || ended.code !== 0 || starts.length !== ran + 1) failures += 1;
      else if (i > 0) samples.push(starts[starts.length - 1]! - sent.at);
    }
  } finally {
    board.child.kill("SIGTERM");
    await board.done;
  }
  return { samples, failures };
}

/** Runs P16: `turns` library turns, then `cliRounds` `seat run`s answered through a `seat board` process. */
export async function benchLinks({
  turns = 100,
  cliRounds = 20,
}: {
  turns?: number;
  cliRounds?: number;
} = {}): Promise<LinksBenchResult> {
  const rig = await startLiveRig({
    rules: [
      {
        match: "p16 held turn",
        replies: [
          { toolCalls: [{ name: "run_terminal_command", arguments: { command: COMMAND, description: "p16" } }] },
          { text: "held turn done" },
        ],
      },
    ],
  });
  const empty = summarise([]);
  if (typeof rig === "string") return { library: empty, cli: empty, failures: 0, skipped: rig };
  const receiver = await startNotifyReceiver(SECRET);
  try {
    const floor = await benchFloor(rig, turns);
    const library = await benchLibrary(rig, turns);
    const cli = await benchCli(rig, receiver, cliRounds);
    const refused = receiver.requests.filter((q) => q.refused !== undefined).length;
    return {
      library: summarise(library.samples),
      libraryBoard: summarise(library.boardShare),
      floor: summarise(floor),
      cli: summarise(cli.samples),
      failures: library.failures + cli.failures + refused,
    };
  } finally {
    await receiver.close();
    await rig.close();
  }
}

/** P16's section of BENCHMARKS.md. */
export function linksSection(r: LinksBenchResult): {
  title: string;
  body: string;
  goals: Array<{ goal: string; met: boolean | undefined; measured: string }>;
} {
  const title = "P16 approval by link: the confirm POST → the approved tool starts";
  if (r.skipped)
    return {
      title,
      body: `Skipped: ${r.skipped}.`,
      goals: [{ goal: "approval by link p99 ≤ 100 ms", met: undefined, measured: "skipped" }],
    };
  const row = (path: string, l: LinkLatencies) => [path, String(l.n), fmt(l.p50), fmt(l.p90), fmt(l.p99), fmt(l.max)];
  const clean = r.failures === 0;
  return {
    title: `${title} (${r.library.n} library, ${r.cli.n} \`seat run\` + \`seat board\`)`,
    body: [
      table(
        ["path", "n", "p50 (ms)", "p90 (ms)", "p99 (ms)", "max (ms)"],
        [
          row("library: a board in the session's process (listApprovals / answerApproval)", r.library),
          ...(r.libraryBoard
            ? [row("library, the board's share: confirm POST → answer in the session's queue", r.libraryBoard)]
            : []),
          row("CLI: a `seat board` process answers a `seat run` over its control socket", r.cli),
          ...(r.floor
            ? [row("floor, no board: a local approver's answer → the tool starts (grok's own share)", r.floor)]
            : []),
        ],
      ),
      "",
      `Failures (a confirm not answered 200, a command not run exactly once, a webhook refused): ${r.failures}. Percentiles are nearest-rank` +
        `${r.cli.n < 100 ? `; with n = ${r.cli.n} the CLI p99 is its maximum` : ""}. Clocks: Date.now() before the POST, the shell's \`date +%s%N\` when the command runs (one machine clock).`,
    ].join("\n"),
    goals: [
      {
        goal: "approval by link p99 ≤ 100 ms (library, real grok)",
        met: clean && r.library.n >= 100 ? r.library.p99 <= 100 : clean ? undefined : false,
        measured: `p50 ${fmt(r.library.p50)} ms, p99 ${fmt(r.library.p99)} ms (n = ${r.library.n})${clean ? "" : `, ${r.failures} failures`}`,
      },
      {
        goal: "approval by link p99 ≤ 100 ms (`seat board` + `seat run`)",
        met: clean && r.cli.n > 0 ? r.cli.p99 <= 100 : clean ? undefined : false,
        measured: `p50 ${fmt(r.cli.p50)} ms, max ${fmt(r.cli.max)} ms (n = ${r.cli.n})`,
      },
    ],
  };
}
