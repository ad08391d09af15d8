/*
 * Door parity cases: every door a supervised turn starts from × every property it must have alike, as data.
 * Owns: the doors, the properties and, per cell, what the door must show — or why the cell does not apply.
 * Does not own: running them (parity.test.ts drives each door's turns on the real grok against the mock and
 *   checks every cell of that door).
 * Invariant: every door has a cell for every property; a cell is either an expectation or `na` with its reason,
 *   never left out (the runner fails on a missing cell, and on a cell it did not check).
 */

/** Where a supervised turn starts. */
export type DoorId =
  | "cli-plain"
  | "cli-named"
  | "mcp-run"
  | "mcp-named"
  | "library-named"
  | "library-turn"
  | "library-turn-named"
  | "fleet-job"
  | "compare";

/** What every door must have alike. */
export type PropertyId = "ps" | "approval-owner" | "worktree" | "ledger" | "budget" | "cancel" | "journal" | "masking";

/** One cell: what the door must show, or why it does not apply. */
export type Cell =
  /**
   * Listed by `seat ps --json` (with `--redis URL` for a fleet job) while working and while waiting on an approval
   * (waitingOn approval), as `kind`, with `name` when set.
   */
  | { ps: { kind: "run" | "named-session" | "job"; name?: string } }
  /**
   * The held approval, listed by `seat approvals --json` (with `--redis URL` for a fleet job) from another process,
   * names this owner (no name when absent).
   */
  | { owner: { kind: "session" | "named-session" | "job"; name?: string } }
  /**
   * The turn worked in seat worktree `name` — or, for a door that makes its own, in the one it reported, named like
   * `made` — its shell command's file is committed on seat/<name>, the user's tree has none.
   */
  | { worktree: { name: string } }
  | { worktree: { made: RegExp } }
  /**
   * The journal's ledger rows written during the door's turns count every model call the mock served then, once:
   * their model calls and tokens add up to exactly what the mock served, and each row is the door's (`source`, the
   * session's name or none) and one of the turns it reported.
   */
  | { ledger: { source: "run" | "session" | "job"; session?: string } }
  /**
   * A turn given a token budget of `maxTokens` that its first model call passes ends `cancelled` with `code`, its
   * next model call never sent (the call asks for a command held for approval that nobody answers).
   */
  | { budget: { maxTokens: number; code: "BUDGET_EXCEEDED" } }
  /**
   * The door's running turn is cancelled from another process — `seat cancel -s NAME` (`by: "name"`), `seat
   * cancel ID` with the id `seat ps --json` lists it under (`by: "ps-id"`) or `seat jobs cancel ID --redis URL`
   * (`by: "job-id"`) — and ends with stop reason `cancelled`, its agent disposed.
   */
  | { cancel: { by: "name" | "ps-id" | "job-id" } }
  /**
   * `seat sessions history NAME --json` holds one row per turn the door ran, by its prompt id, in order: `completed`
   * for a turn that ended `end_turn`, `interrupted` for one that ended `cancelled`.
   */
  | { journal: { name: string } }
  /**
   * `seat jobs show ID --redis URL --json` holds each job the door ran with its prompt id and the status its
   * stream ended with (`completed` for a turn that ended `end_turn`, `cancelled` for one that ended `cancelled`).
   */
  | { jobRecord: { status: "completed or cancelled" } }
  /**
   * The canary key in the door's environment, echoed by the model, is masked (`[redacted]` where it was) in what
   * the door `prints`, and in the journal's bytes; none of its outputs holds the value.
   */
  | { masking: { prints: "stdout and stderr" | "the tool result" | "nothing" | "a table, none of the model's text" } }
  | { na: string };

export interface Door {
  id: DoorId;
  /** How the door is reached, as a person would say it. */
  label: string;
  /** The named session's name, for the doors that open one. */
  session?: string;
  cells: Record<PropertyId, Cell>;
}

export const PROPERTIES: Record<PropertyId, string> = {
  ps: "listed by `seat ps --json` with its kind and state, while working and while waiting on an approval",
  "approval-owner":
    "its held approval names the same owner (kind + name) in `seat approvals --json`, and is answered from another process",
  worktree:
    "a worktree asked for is honoured: the agent works in it, the turn is committed on seat/<name>, the user's tree is untouched",
  ledger: "every model call the mock served during the door's turns is in the ledger exactly once, as the door's",
  budget: "a turn's token budget is kept at this door: a turn that passes it ends cancelled with BUDGET_EXCEEDED",
  cancel: "the running turn is cancelled from another shell and ends cancelled, its agent disposed",
  journal: "the door's record of each turn it ran: its prompt id and how it ended",
  masking: "a secret the model echoes is masked in everything the door prints and writes",
};

const PLAIN_JOURNAL =
  "a plain run has no session, so the journal keeps no turn history for it (`seat sessions history` needs a name); " +
  "its record is its ledger rows, checked by the ledger cell";

export const DOORS: readonly Door[] = [
  {
    id: "cli-plain",
    label: "seat run --worktree=NAME",
    cells: {
      ps: { ps: { kind: "run" } },
      "approval-owner": { owner: { kind: "session" } },
      worktree: { worktree: { name: "parity-cli-plain" } },
      ledger: { ledger: { source: "run" } },
      budget: { budget: { maxTokens: 5, code: "BUDGET_EXCEEDED" } },
      cancel: { cancel: { by: "ps-id" } },
      journal: { na: PLAIN_JOURNAL },
      masking: { masking: { prints: "stdout and stderr" } },
    },
  },
  {
    id: "cli-named",
    label: "seat run -s NAME --worktree=NAME",
    session: "parity-cli",
    cells: {
      ps: { ps: { kind: "named-session", name: "parity-cli" } },
      "approval-owner": { owner: { kind: "named-session", name: "parity-cli" } },
      worktree: { worktree: { name: "parity-cli-named" } },
      ledger: { ledger: { source: "session", session: "parity-cli" } },
      budget: { budget: { maxTokens: 5, code: "BUDGET_EXCEEDED" } },
      cancel: { cancel: { by: "name" } },
      journal: { journal: { name: "parity-cli" } },
      masking: { masking: { prints: "stdout and stderr" } },
    },
  },
  {
    id: "mcp-run",
    label: "seat mcp, tool run { worktree: NAME }",
    cells: {
      ps: { ps: { kind: "run" } },
      "approval-owner": { owner: { kind: "session" } },
      worktree: { worktree: { name: "parity-mcp-run" } },
      ledger: { ledger: { source: "run" } },
      budget: { budget: { maxTokens: 5, code: "BUDGET_EXCEEDED" } },
      cancel: { cancel: { by: "ps-id" } },
      journal: { na: PLAIN_JOURNAL },
      masking: { masking: { prints: "the tool result" } },
    },
  },
  {
    id: "mcp-named",
    label: "seat mcp, tool run { session: NAME, worktree: NAME }",
    session: "parity-mcp",
    cells: {
      ps: { ps: { kind: "named-session", name: "parity-mcp" } },
      "approval-owner": { owner: { kind: "named-session", name: "parity-mcp" } },
      worktree: { worktree: { name: "parity-mcp-named" } },
      ledger: { ledger: { source: "session", session: "parity-mcp" } },
      budget: { budget: { maxTokens: 5, code: "BUDGET_EXCEEDED" } },
      cancel: { cancel: { by: "name" } },
      journal: { journal: { name: "parity-mcp" } },
      masking: { masking: { prints: "the tool result" } },
    },
  },
  {
    id: "library-named",
    label: "openSession({ name, approvals, scopeDir }) with planTurnWorktree/finishTurnWorktree",
    session: "parity-lib",
    cells: {
      ps: { ps: { kind: "named-session", name: "parity-lib" } },
      "approval-owner": { owner: { kind: "named-session", name: "parity-lib" } },
      worktree: { worktree: { name: "parity-library-named" } },
      ledger: { ledger: { source: "session", session: "parity-lib" } },
      budget: { budget: { maxTokens: 5, code: "BUDGET_EXCEEDED" } },
      cancel: { cancel: { by: "name" } },
      journal: { journal: { name: "parity-lib" } },
      // The library prints nothing of its own: the caller gets the agent's text as the agent sent it. What it
      // writes for other processes (the journal, read by `seat sessions history`) is checked.
      masking: { masking: { prints: "nothing" } },
    },
  },
  {
    id: "library-turn",
    label: "runSupervisedTurn({ prompt, approvals, worktree }) in a caller's own process, a fresh session per turn",
    cells: {
      ps: { ps: { kind: "run" } },
      "approval-owner": { owner: { kind: "session" } },
      worktree: { worktree: { name: "parity-library-turn" } },
      ledger: { ledger: { source: "run" } },
      budget: { budget: { maxTokens: 5, code: "BUDGET_EXCEEDED" } },
      cancel: { cancel: { by: "ps-id" } },
      journal: { na: PLAIN_JOURNAL },
      masking: { masking: { prints: "nothing" } },
    },
  },
  {
    id: "library-turn-named",
    label: "runSupervisedTurn({ named: { name }, worktree, approvals }) in a caller's own process",
    session: "parity-lib-turn",
    cells: {
      ps: { ps: { kind: "named-session", name: "parity-lib-turn" } },
      "approval-owner": { owner: { kind: "named-session", name: "parity-lib-turn" } },
      worktree: { worktree: { name: "parity-library-turn-named" } },
      ledger: { ledger: { source: "session", session: "parity-lib-turn" } },
      budget: { budget: { maxTokens: 5, code: "BUDGET_EXCEEDED" } },
      cancel: { cancel: { by: "name" } },
      journal: { journal: { name: "parity-lib-turn" } },
      masking: { masking: { prints: "nothing" } },
    },
  },
  {
    id: "fleet-job",
    label: "seat submit --redis URL --wait, run by a seat worker (real redis-server)",
    cells: {
      ps: { ps: { kind: "job" } },
      "approval-owner": { owner: { kind: "job" } },
      worktree: {
        na:
          "a fleet job works in a worktree of the worker's cache clone of --repo, pushed back to that repository " +
          "(not a seat worktree of the user's tree): test/live/fleet/fleet-worktrees.test.ts",
      },
      ledger: { ledger: { source: "job" } },
      budget: { budget: { maxTokens: 5, code: "BUDGET_EXCEEDED" } },
      cancel: { cancel: { by: "job-id" } },
      journal: { jobRecord: { status: "completed or cancelled" } },
      // The submitter's shell holds no key: what the worker publishes must already be masked.
      masking: { masking: { prints: "stdout and stderr" } },
    },
  },
  {
    id: "compare",
    label: "seat compare --agents grok --json, one agent in the worktree compare makes for it",
    cells: {
      ps: { ps: { kind: "run" } },
      "approval-owner": { owner: { kind: "session" } },
      // Every compare makes its own worktree, cmp-<UTC time>-<4 hex>-<agent>, and says its name.
      worktree: { worktree: { made: /^cmp-\d{8}-\d{6}-[0-9a-f]{4}-grok$/ } },
      ledger: { ledger: { source: "run" } },
      budget: {
        na: "seat compare has no budget flag (--max-tokens / --max-cost): it compares agents on the same task as each runs it",
      },
      cancel: { cancel: { by: "ps-id" } },
      journal: { na: PLAIN_JOURNAL },
      // It prints a table (stop reason, time, tokens, diffstat), none of the agent's text: the key must not be there.
      masking: { masking: { prints: "a table, none of the model's text" } },
    },
  },
];
