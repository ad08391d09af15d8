/*
 * R5 secrets: a canary variable set in the harness's own environment must never reach the agent, its
 *   descendants (the host-tools MCP server grok starts, a fake's grandchild), the model, or anything the
 *   harness reports (events, diagnostics, audit records).
 * Owns: runSecretsCheck(): one session on the fake agent and one on real grok with host tools, each checked
 *   through /proc/<pid>/environ of every descendant while the session is alive, and through everything reported;
 *   then an allow-listed canary (XAI_API_KEY, which grok must receive) on the real grok TUI through the `seat`
 *   CLI (hire, send, status, release) and headless (`seat run`), checked by a /proc/<pid>/cmdline sampler
 *   process running throughout, the tmux server's environment, and a grep of every file under the seat home
 *   and socket dir and of every CLI output; and (issue 14 §6b) canaries in every other agent's key variable and
 *   the Redis password under `seat run`, whose grok runs `env` so its shell's environment reaches the model: none
 *   may reach grok, the model, an argv, a file or an output.
 * Does not own: the env allow-list (src/grok/launch.ts) or the bridge (src/tools/).
 */
import { spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isTmuxAvailable } from "../src/mux/index.js";
import { SEAT_MAIN, runSeat } from "../test/support/cli.js";
import { filesHolding, startArgvSampler } from "../test/support/secret-canary.js";
import { createSession, type SessionOptions } from "../src/runtime/index.js";
import { snapshotTree } from "../src/grok/index.js";
import type { HostTool } from "../src/tools/index.js";
import { fakeGrokBinary } from "../test/support/fake-agent.js";
import { startLiveRig } from "../test/support/live-rig.js";
import { visibleSeatFlags } from "../test/support/visible-hire.js";

/** One checked session. */
export interface SecretsCase {
  agent: "fake" | "grok" | "grok-tui (XAI_API_KEY)" | "seat run (XAI_API_KEY)" | "seat run (other agents' keys)";
  /** Full /proc/<pid>/cmdline sweeps the sampler made while the case ran (allow-listed canary cases). */
  argvSweeps?: number;
  /** Files grepped for the canary (seat home, socket dir). */
  filesChecked?: number;
  /** Processes whose environ was read (agent + descendants). */
  processesChecked: number;
  /** The first argv words of those processes (e.g. grok, node …/server-entry.js). */
  commands?: string[];
  /** Where the canary was found (`environ:<pid> <cmd>`, `events`, `audit`, `diagnostics`, `model requests`). */
  leaks: string[];
  skipped?: string;
}

/** The R5 result. */
export interface SecretsResult {
  cases: SecretsCase[];
  leaks: number;
}

const CANARY_NAME = "GROK_SEAT_R5_CANARY_SECRET";

const echo: HostTool = {
  name: "echo",
  description: "returns its text",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: (args: { text: string }) => args.text,
};

function environLeaks(rootPid: number, canary: string): { checked: number; leaks: string[]; commands: string[] } {
  const leaks: string[] = [];
  const commands: string[] = [];
  const refs = snapshotTree([rootPid]);
  for (const { pid } of refs) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "latin1")
        .split("\0")
        .slice(0, 2)
        .map((a) => a.split("/").pop() ?? a);
      commands.push(argv.join(" ").trim());
      if (readFileSync(`/proc/${pid}/environ`, "latin1").includes(canary)) {
        leaks.push(`environ:${pid} ${readFileSync(`/proc/${pid}/cmdline`, "latin1").replace(/\0/g, " ").slice(0, 80)}`);
      }
    } catch {
      // Exited meanwhile.
    }
  }
  return { checked: refs.length, leaks, commands };
}

async function checkSession(
  agent: SecretsCase["agent"],
  options: SessionOptions,
  prompt: string,
  canary: string,
  extra: () => string = () => "",
): Promise<SecretsCase> {
  const events: unknown[] = [];
  const session = await createSession({
    ...options,
    tools: [echo],
    onPermissionRequest: async (r) => ({ outcome: { outcome: "selected", optionId: r.options[0]!.optionId } }),
    callbacks: { onEvent: (e) => void events.push(e) },
  });
  const leaks: string[] = [];
  let checked = 0;
  let commands: string[] = [];
  try {
    if (session.state !== "ready" || session.agent?.pid === undefined)
      return {
        agent,
        processesChecked: 0,
        leaks: [],
        skipped: `session did not start: ${JSON.stringify(session.diagnostics)}`,
      };
    const before = environLeaks(session.agent.pid, canary);
    await session.prompt(prompt);
    const after = environLeaks(session.agent.pid, canary);
    checked = Math.max(before.checked, after.checked);
    commands = [...new Set([...before.commands, ...after.commands])];
    leaks.push(...new Set([...before.leaks, ...after.leaks]));
  } finally {
    await session.dispose();
  }
  if (JSON.stringify(events).includes(canary)) leaks.push("events");
  if (JSON.stringify(session.audit).includes(canary)) leaks.push("audit");
  if (JSON.stringify(session.diagnostics).includes(canary)) leaks.push("diagnostics");
  if (extra().includes(canary)) leaks.push("model requests");
  return { agent, processesChecked: checked, commands, leaks };
}

function seatCli(env: NodeJS.ProcessEnv, args: string[], outputs: string[]): { code: number; json: any } {
  const r = spawnSync(process.execPath, [SEAT_MAIN, ...args], { env, encoding: "utf8", timeout: 120_000 });
  outputs.push(r.stdout, r.stderr);
  let json: any = null;
  try {
    json = JSON.parse(r.stdout.trim().split("\n").filter(Boolean).pop() ?? "");
  } catch {
    /* text */
  }
  return { code: r.status ?? -1, json };
}

const environOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1");
  } catch {
    return "";
  }
};

/** The visible seat on the real TUI with XAI_API_KEY = canary: hire, send, status, release through the CLI. */
async function checkVisibleSeat(): Promise<SecretsCase> {
  const agent = "grok-tui (XAI_API_KEY)" as const;
  if (!(await isTmuxAvailable())) return { agent, processesChecked: 0, leaks: [], skipped: "tmux is not installed" };
  const rig = await startLiveRig({ fallback: { text: "canary-free answer" } });
  if (typeof rig === "string") return { agent, processesChecked: 0, leaks: [], skipped: rig };
  const canary = `xai-canary-${randomBytes(12).toString("hex")}`;
  const seatHome = join(rig.sandbox.root, "sh");
  const tmux = `gs-r5-${randomBytes(4).toString("hex")}`;
  const env = {
    ...rig.sandbox.env,
    GROK_SEAT_HOME: seatHome,
    TERM: "xterm-256color",
    XAI_API_KEY: canary,
    TMPDIR: rig.sandbox.root,
  };
  const base = visibleSeatFlags(rig, tmux);
  const outputs: string[] = [];
  const leaks: string[] = [];
  const sampler = startArgvSampler(canary);
  let socketDir: string | null = null;
  let filesChecked = 0;
  let note: string | undefined;
  try {
    seatCli(env, ["hire", ...base, "--dry-run", "--json"], outputs);
    const hired = seatCli(env, ["hire", ...base, "--json"], outputs);
    if (hired.code !== 0) note = `hire failed: ${JSON.stringify(hired.json)}`;
    else {
      const seatId = hired.json.seatId as string;
      const status = seatCli(env, ["status", seatId, "--json"], outputs).json;
      if (!environOf(status.tui.pid).includes(canary))
        note = "positive control failed: the TUI's environment lacks the key";
      const tmuxOut = (args: string[]) =>
        spawnSync("tmux", ["-L", tmux, ...args], {
          encoding: "utf8",
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        }).stdout;
      if (environOf(Number(tmuxOut(["display-message", "-p", "#{pid}"]).trim())).includes(canary))
        leaks.push("tmux server environ");
      if (tmuxOut(["show-environment", "-g"]).includes(canary)) leaks.push("tmux show-environment -g");
      seatCli(env, ["send", seatId, "a brief with no secret", "--wait", "consumed", "--json"], outputs);
      seatCli(env, ["status", seatId], outputs);
      socketDir = JSON.parse(readFileSync(join(seatHome, "seats", seatId, "seat.json"), "utf8")).socket_dir as string;
      const inSocketDir = filesHolding([socketDir], canary);
      filesChecked += inSocketDir.checked;
      leaks.push(...inSocketDir.hits.map((f) => `file ${f}`));
      seatCli(env, ["release", seatId, "--close-pane", "--json"], outputs);
    }
  } catch (error) {
    // A run that broke is named in the report (skipped), never hidden by the cleanup below.
    note = `the run failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  const seen = await sampler.stop();
  spawnSync("tmux", ["-L", tmux, "kill-server"]);
  const files = filesHolding([seatHome], canary);
  await rig.close();
  leaks.push(...seen.hits.map((h) => `argv ${h.slice(0, 80)}`), ...files.hits.map((f) => `file ${f}`));
  if (outputs.some((o) => o.includes(canary))) leaks.push("CLI output");
  filesChecked += files.checked;
  return {
    agent,
    processesChecked: 1,
    commands: ["tmux server (environ)"],
    argvSweeps: seen.samples,
    filesChecked,
    leaks,
    ...(note ? { skipped: note } : {}),
  };
}

/** `seat run` on real grok with XAI_API_KEY = canary: argv sampled throughout, every output grepped. */
async function checkHeadlessRun(): Promise<SecretsCase> {
  const agent = "seat run (XAI_API_KEY)" as const;
  const rig = await startLiveRig({ fallback: { text: "pong" } });
  if (typeof rig === "string") return { agent, processesChecked: 0, leaks: [], skipped: rig };
  const canary = `xai-canary-${randomBytes(12).toString("hex")}`;
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: rig.sandbox.home,
    GROK_HOME: rig.sandbox.grokHome,
    GROK_BIN: rig.binary,
    XAI_API_KEY: canary,
  };
  const sampler = startArgvSampler(canary);
  const outputs: string[] = [];
  let code: number | null = null;
  try {
    for (const args of [
      ["run", "--json", "say pong"],
      ["run", "say pong"],
    ]) {
      const r = await runSeat(args, { env, cwd: rig.sandbox.project });
      outputs.push(r.stdout, r.stderr);
      code ??= r.code;
    }
  } finally {
    await rig.close();
  }
  const seen = await sampler.stop();
  const leaks = [
    ...seen.hits.map((h) => `argv ${h.slice(0, 80)}`),
    ...(outputs.some((o) => o.includes(canary)) ? ["CLI output"] : []),
  ];
  return {
    agent,
    processesChecked: 0,
    argvSweeps: seen.samples,
    leaks,
    ...(code !== 0 ? { skipped: `seat run exited ${code}` } : {}),
  };
}

/** Secret names of the other agents and the fleet (src/internal/redact.ts SECRET_ENV_NAMES beyond xAI's). */
const OTHER_SECRET_NAMES = [
  "OPENAI_API_KEY",
  "CODEX_API_KEY",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GROK_SEAT_REDIS_PASSWORD",
];

/** `seat run` on real grok with a canary in each other agent's key variable; grok's shell prints its env to the model. */
async function checkOtherAgentKeys(): Promise<SecretsCase> {
  const agent = "seat run (other agents' keys)" as const;
  const rig = await startLiveRig({
    rules: [
      {
        match: "show the env",
        replies: [
          {
            toolCalls: [
              { name: "run_terminal_command", arguments: { command: "env", description: "print the environment" } },
            ],
          },
          { text: "env shown" },
        ],
      },
    ],
  });
  if (typeof rig === "string") return { agent, processesChecked: 0, leaks: [], skipped: rig };
  const prefix = `canary-${randomBytes(8).toString("hex")}`;
  const marker = `tz-marker-${randomBytes(4).toString("hex")}`;
  const canaries = Object.fromEntries(OTHER_SECRET_NAMES.map((name) => [name, `${prefix}-${name.toLowerCase()}`]));
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: rig.sandbox.home,
    GROK_HOME: rig.sandbox.grokHome,
    GROK_BIN: rig.binary,
    TZ: marker,
    ...canaries,
  };
  const sampler = startArgvSampler(prefix);
  const outputs: string[] = [];
  let code: number | null = null;
  let modelSaw = "";
  let files = { checked: 0, hits: [] as string[] };
  try {
    for (const args of [
      ["run", "--json", "--allow", "execute", "please show the env"],
      ["run", "--allow", "execute", "please show the env"],
    ]) {
      const r = await runSeat(args, { env, cwd: rig.sandbox.project });
      outputs.push(r.stdout, r.stderr);
      code ??= r.code;
    }
    modelSaw = JSON.stringify(rig.mock.requests.map((r) => r.body));
    files = filesHolding([rig.sandbox.root], prefix);
  } finally {
    await rig.close();
  }
  const seen = await sampler.stop();
  const leaks = [
    ...seen.hits.map((h) => `argv ${h.slice(0, 80)}`),
    ...files.hits.map((f) => `file ${f}`),
    ...(outputs.some((o) => o.includes(prefix)) ? ["CLI output"] : []),
    ...(modelSaw.includes(prefix) ? ["grok's environment / model requests"] : []),
  ];
  const note =
    code !== 0
      ? `seat run exited ${code}`
      : !modelSaw.includes(`TZ=${marker}`)
        ? "positive control failed: grok's shell env did not reach the model"
        : undefined;
  return {
    agent,
    processesChecked: 0,
    argvSweeps: seen.samples,
    filesChecked: files.checked,
    leaks,
    ...(note ? { skipped: note } : {}),
  };
}

/** Runs R5 with the canary set in process.env for the duration. */
export async function runSecretsCheck(): Promise<SecretsResult> {
  const canary = `canary-${randomUUID()}`;
  const previous = process.env[CANARY_NAME];
  process.env[CANARY_NAME] = canary;
  const cases: SecretsCase[] = [];
  try {
    const fake = fakeGrokBinary();
    try {
      // No `env` option: createSession reads process.env, where the canary is.
      for (const scenario of ["permission", "sigterm-ignoring-grandchild"]) {
        cases.push(
          await checkSession(
            "fake",
            { cwd: fake.dir, grokCliBinaryPath: fake.path, agentEnv: { FAKE_GROK_SCENARIO: scenario } },
            "TOOLTEST please",
            canary,
          ),
        );
      }
    } finally {
      fake.remove();
    }
    const rig = await startLiveRig({ fallback: { text: "secret-free pong" } });
    if (typeof rig === "string") cases.push({ agent: "grok", processesChecked: 0, leaks: [], skipped: rig });
    else {
      try {
        const { env: _reduced, ...rest } = rig.sessionOptions;
        cases.push(
          await checkSession("grok", { ...rest, env: process.env }, "say pong", canary, () =>
            JSON.stringify(rig.mock.requests),
          ),
        );
      } finally {
        await rig.close();
      }
    }
  } finally {
    if (previous === undefined) delete process.env[CANARY_NAME];
    else process.env[CANARY_NAME] = previous;
  }
  cases.push(await checkVisibleSeat(), await checkHeadlessRun(), await checkOtherAgentKeys());
  return { cases, leaks: cases.reduce((n, c) => n + c.leaks.length, 0) };
}
