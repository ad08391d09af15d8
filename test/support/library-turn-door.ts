/*
 * A library caller in a process of its own: the parity matrix's library-turn doors. It runs one
 *   `runSupervisedTurn` (from the package's front door) per request — a fresh session, or the named session given on
 *   the command line — with held approvals, and says how each ended.
 * Protocol: argv[2] is `{ cwd, named? }`; each stdin line is `{ op: "turn", prompt, worktree?, maxTokens? }` (one at a
 *   time) or `{ op: "abort" }` (the running turn's signal); each turn's end is one stdout line `{ type: "outcome",
 *   promptId, stopReason, codes, worktree }`. It prints nothing of the agent's text (a library prints nothing of its
 *   own). Stdin closing ends it once the running turn has closed.
 */
import { createInterface } from "node:readline";
import { DEFAULT_POLICY, createPermissionGate, runSupervisedTurn } from "../../src/index.js";

const config = JSON.parse(process.argv[2] ?? "{}") as { cwd: string; named?: string };
let aborter = new AbortController();
let running: Promise<void> = Promise.resolve();

async function turn(request: { prompt: string; worktree?: string; maxTokens?: number }): Promise<void> {
  aborter = new AbortController();
  const outcome = await runSupervisedTurn({
    prompt: request.prompt,
    signal: aborter.signal,
    cwd: config.cwd,
    permissions: createPermissionGate({ policy: DEFAULT_POLICY }),
    approvals: { timeoutMs: 120_000 },
    diagnosticsAsText: false,
    ...(config.named ? { named: { name: config.named } } : {}),
    ...(request.worktree ? { worktree: { name: request.worktree } } : {}),
    ...(request.maxTokens !== undefined ? { budget: { maxTokens: request.maxTokens } } : {}),
  }).catch((error: unknown) => ({ error }));
  const line =
    "error" in outcome
      ? { type: "outcome", stopReason: null, codes: [String((outcome.error as { code?: unknown }).code ?? "THROWN")] }
      : {
          type: "outcome",
          promptId: outcome.result.promptId,
          stopReason: outcome.result.stopReason ?? null,
          codes: outcome.diagnostics.map((d) => d.code),
          worktree: outcome.worktree?.name ?? null,
        };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

const input = createInterface({ input: process.stdin });
input.on("line", (text) => {
  const request = JSON.parse(text) as { op: "turn" | "abort"; prompt: string; worktree?: string; maxTokens?: number };
  if (request.op === "abort") aborter.abort();
  else running = running.then(() => turn(request));
});
input.on("close", () => void running.then(() => process.exit(0)));
