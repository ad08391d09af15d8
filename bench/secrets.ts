/*
 * R5 secrets: a canary variable set in the harness's own environment must never reach the agent, its
 *   descendants (the host-tools MCP server grok starts, a fake's grandchild), the model, or anything the
 *   harness reports (events, diagnostics, audit records).
 * Owns: runSecretsCheck(): one session on the fake agent and one on real grok with host tools, each checked
 *   through /proc/<pid>/environ of every descendant while the session is alive, and through everything reported.
 * Does not own: the env allow-list (src/grok/launch.ts) or the bridge (src/tools/).
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createSession, type SessionOptions } from "../src/runtime/index.js";
import { snapshotTree } from "../src/grok/index.js";
import type { HostTool } from "../src/tools/index.js";
import { fakeGrokBinary } from "../test/support/fake-agent.js";
import { startLiveRig } from "../test/support/live-rig.js";

/** One checked session. */
export interface SecretsCase {
  agent: "fake" | "grok";
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
      const argv = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").slice(0, 2).map((a) => a.split("/").pop() ?? a);
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

async function checkSession(agent: SecretsCase["agent"], options: SessionOptions, prompt: string, canary: string, extra: () => string = () => ""): Promise<SecretsCase> {
  const events: unknown[] = [];
  const session = await createSession({ ...options, tools: [echo], onPermissionRequest: async (r) => ({ outcome: { outcome: "selected", optionId: r.options[0]!.optionId } }), callbacks: { onEvent: (e) => void events.push(e) } });
  const leaks: string[] = [];
  let checked = 0;
  let commands: string[] = [];
  try {
    if (session.state !== "ready" || session.agent?.pid === undefined) return { agent, processesChecked: 0, leaks: [], skipped: `session did not start: ${JSON.stringify(session.diagnostics)}` };
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
        cases.push(await checkSession("fake", { cwd: fake.dir, grokCliBinaryPath: fake.path, agentEnv: { FAKE_GROK_SCENARIO: scenario } }, "TOOLTEST please", canary));
      }
    } finally {
      fake.remove();
    }
    const rig = await startLiveRig({ fallback: { text: "secret-free pong" } });
    if (typeof rig === "string") cases.push({ agent: "grok", processesChecked: 0, leaks: [], skipped: rig });
    else {
      try {
        const { env: _reduced, ...rest } = rig.sessionOptions;
        cases.push(await checkSession("grok", { ...rest, env: process.env }, "say pong", canary, () => JSON.stringify(rig.mock.requests)));
      } finally {
        await rig.close();
      }
    }
  } finally {
    if (previous === undefined) delete process.env[CANARY_NAME];
    else process.env[CANARY_NAME] = previous;
  }
  return { cases, leaks: cases.reduce((n, c) => n + c.leaks.length, 0) };
}
