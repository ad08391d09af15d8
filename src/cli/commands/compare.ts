/*
 * `seat compare "<prompt>" --agents grok,codex,claude [--base REF]`: the same task on several agents at once, each
 *   in its own seat worktree; one table of results (stop reason, time, tokens, diffstat), then `seat diff` per agent.
 * Owns: the verb's flags, running the turns side by side and the table (text or one JSON object per agent).
 * Does not own: the worktrees (worktrees/) or the turns: each agent runs the supervised turn (turn/) — a control
 *   socket (`seat ps`, `seat cancel`), held approvals, the ledger — in the worktree made for it.
 * Invariant: every worktree exists (or a coded error was thrown) before any agent starts; each agent's work is
 *   committed on its own branch seat/<compare id>-<agent>; the user's tree is never touched.
 */
import { randomBytes } from "node:crypto";
import { SeatError, isSeatError, messageOf } from "../../errors.js";
import { agentProfile } from "../../agents/index.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../../approvals/index.js";
import { createPermissionGate } from "../../permissions/index.js";
import { seatHome } from "../../home/index.js";
import { runSupervisedTurn } from "../../turn/index.js";
import { createWorktree, existingTurnWorktree, shortStat, type WorktreeRecord } from "../../worktrees/index.js";
import { directoryFlag, listFlag, parseFlags, secondsFlag, stringFlag } from "../args.js";
import { policyFromArgs } from "../policy.js";
import { promptFrom } from "../prompt-input.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

/** One agent's row of the comparison. */
interface CompareRow {
  agent: string;
  name: string;
  branch: string;
  /** The turn's prompt id (its rows in `seat usage`); null when it was never sent. */
  promptId: string | null;
  stopReason: string | null;
  code: string | null;
  ms: number;
  totalTokens: number | null;
  diffstat: string;
  commit: string | null;
}

export const compareCommand: Command = {
  name: "compare",
  help: `Usage: seat compare "<prompt>" --agents LIST [flags]

  Runs the same prompt on several agents at once, each in its own git worktree of this repository (branch
  seat/<compare id>-<agent>, under the seat home), commits what each changed, and prints one table: stop
  reason, time, tokens and diffstat per agent. Review each with seat diff NAME; keep one with seat merge NAME.
  --agents LIST         comma-separated agents: grok, codex, claude, opencode, gemini (each at most once)
  --base REF            branch every worktree from REF instead of HEAD
  -f, --file FILE       the prompt from FILE, or stdin with "-"
  --cwd DIR             a directory of the repository (default: current)
  --allow/--ask/--block LIST, --policy FILE, --unrestricted   as for seat run: a call the policy holds waits for
                        seat approve / seat deny from another shell (seat approvals lists it)
  --turn-timeout SECS   per agent (default 900, 0 = off)
  --json                one {"type":"compare",…} object per agent (its promptId names its seat usage rows)
  Each agent's turn is listed by seat ps (kind run) and cancelled with seat cancel ID.

Examples:
  seat compare --agents grok,codex,claude --allow edit "add a --verbose flag"
  seat compare --agents grok,claude --base v1.2 --json -f task.md`,
  async run(argv) {
    const args = parseFlags("compare", argv, {
      agents: { type: "string", multiple: true },
      base: { type: "string" },
      file: { type: "string", short: "f" },
      cwd: { type: "string" },
      allow: { type: "string", multiple: true },
      ask: { type: "string", multiple: true },
      block: { type: "string", multiple: true },
      policy: { type: "string" },
      unrestricted: { type: "boolean" },
      "turn-timeout": { type: "string" },
      json: { type: "boolean" },
    });
    const agents = listFlag(args, "agents");
    if (agents.length === 0)
      throw new SeatError("CLI_USAGE", "seat compare: name the agents, e.g. --agents grok,codex,claude.");
    if (new Set(agents).size !== agents.length)
      throw new SeatError("CLI_USAGE", `seat compare: each agent at most once (got ${agents.join(",")}).`);
    for (const agent of agents) agentProfile(agent);
    const cwd = directoryFlag("compare", args, "cwd") ?? process.cwd();
    const turnTimeoutMs = secondsFlag("compare", args, "turn-timeout", 15 * 60_000) || undefined;
    const policy = await policyFromArgs(args);
    const prompt = await promptFrom(
      "compare",
      stringFlag(args, "file"),
      args.positionals,
      'seat compare --agents grok,codex "add a test"',
    );
    const json = args.values.json === true;
    const home = seatHome();
    const id = `cmp-${new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15)}-${randomBytes(2).toString("hex")}`;
    const base = stringFlag(args, "base");
    // Every worktree first: a bad repository, base or name stops here, before any agent starts.
    const records: WorktreeRecord[] = [];
    for (const agent of agents)
      records.push(
        (await createWorktree({ home, cwd, name: `${id}-${agent}`, owner: `compare:${id}`, ...(base ? { base } : {}) }))
          .record,
      );
    const rows = await Promise.all(
      agents.map((agent, i) => runOne(home, agent, records[i]!, prompt, policy, turnTimeoutMs)),
    );
    if (json) for (const row of rows) writeJson({ type: "compare", id, ...row });
    else printTable(id, rows);
    return rows.every((r) => r.code === null && r.stopReason === "end_turn") ? EXIT.ok : EXIT.turnFailed;
  },
};

/** One agent's turn: the supervised turn every door runs, in the worktree made for it; its row of the table. */
async function runOne(
  home: string,
  agent: string,
  record: WorktreeRecord,
  prompt: string,
  policy: Awaited<ReturnType<typeof policyFromArgs>>,
  turnTimeoutMs: number | undefined,
): Promise<CompareRow> {
  const started = Date.now();
  const row: CompareRow = {
    agent,
    name: record.name,
    branch: record.branch,
    promptId: null,
    stopReason: null,
    code: null,
    ms: 0,
    totalTokens: null,
    diffstat: "",
    commit: null,
  };
  try {
    const outcome = await runSupervisedTurn({
      prompt,
      home,
      agent,
      cwd: record.path,
      worktree: existingTurnWorktree(home, record, `compare:${agent}`),
      permissions: createPermissionGate({ policy }),
      // A call the policy holds waits for a person (seat approvals / approve / deny), as with seat run.
      approvals: {
        timeoutMs: policy.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
        owner: { kind: "session" },
      },
      diagnosticsAsText: false,
      ...(turnTimeoutMs ? { turnTimeoutMs } : {}),
    });
    const { result } = outcome;
    row.promptId = outcome.sent ? result.promptId : null;
    row.stopReason = outcome.sent ? (result.stopReason ?? null) : null;
    row.code = result.diagnostic?.code ?? outcome.worktree?.failure?.code ?? null;
    row.totalTokens = result.usage?.totalTokens ?? null;
    row.commit = outcome.worktree?.commit ?? null;
  } catch (error) {
    row.code = isSeatError(error) ? error.code : "ACP_PROMPT_FAILED";
    if (!isSeatError(error)) process.stderr.write(`seat compare: ${agent}: ${messageOf(error)}\n`);
  } finally {
    row.ms = Date.now() - started;
  }
  row.diffstat = await shortStat(record);
  return row;
}

function printTable(id: string, rows: CompareRow[]): void {
  const lines = [
    `compare ${id}`,
    `${"agent".padEnd(10)} ${"stop".padEnd(16)} ${"time".padStart(8)} ${"tokens".padStart(8)}  changes`,
  ];
  for (const r of rows) {
    const stop = r.code ?? r.stopReason ?? "—";
    lines.push(
      `${r.agent.padEnd(10)} ${stop.padEnd(16)} ${`${(r.ms / 1000).toFixed(1)}s`.padStart(8)} ${String(r.totalTokens ?? "—").padStart(8)}  ${r.diffstat || "no changes"}`,
    );
  }
  lines.push("", ...rows.map((r) => `  seat diff ${r.name}`));
  process.stdout.write(`${lines.join("\n")}\n`);
}
