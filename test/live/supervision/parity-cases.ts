/*
 * Door parity cases: every door a supervised turn starts from × every property it must have alike, as data.
 * Owns: the doors, the properties and, per cell, what the door must show — or why the cell does not apply.
 * Does not own: running them (parity.test.ts drives each door once on the real grok against the mock and checks
 *   every cell of that door).
 * Invariant: every door has a cell for every property; a cell is either an expectation or `na` with its reason,
 *   never left out (the runner fails on a missing cell, and on a cell it did not check).
 */

/** Where a supervised turn starts. */
export type DoorId = "cli-plain" | "cli-named" | "mcp-run" | "mcp-named" | "library-named";

/** What every door must have alike. */
export type PropertyId = "ps" | "approval-owner" | "worktree";

/** One cell: what the door must show, or why it does not apply. */
export type Cell =
  /** Listed by `seat ps --json` while working and while waiting on an approval (waitingOn approval), as `kind`, with `name` when set. */
  | { ps: { kind: "run" | "named-session"; name?: string } }
  /** The held approval, listed by `seat approvals --json` from another process, names this owner (no name when absent). */
  | { owner: { kind: "session" | "named-session"; name?: string } }
  /** The turn worked in seat worktree `name`: its shell command's file is committed on seat/<name>, the user's tree has none. */
  | { worktree: { name: string } }
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
};

export const DOORS: readonly Door[] = [
  {
    id: "cli-plain",
    label: "seat run --worktree=NAME",
    cells: {
      ps: { ps: { kind: "run" } },
      "approval-owner": { owner: { kind: "session" } },
      worktree: { worktree: { name: "parity-cli-plain" } },
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
    },
  },
  {
    id: "mcp-run",
    label: "seat mcp, tool run { worktree: NAME }",
    cells: {
      ps: { ps: { kind: "run" } },
      "approval-owner": { owner: { kind: "session" } },
      worktree: { worktree: { name: "parity-mcp-run" } },
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
    },
  },
  {
    id: "library-named",
    label: "openSession({ name, approvals }) with planTurnWorktree/finishTurnWorktree",
    session: "parity-lib",
    cells: {
      ps: { ps: { kind: "named-session", name: "parity-lib" } },
      "approval-owner": { owner: { kind: "named-session", name: "parity-lib" } },
      worktree: { worktree: { name: "parity-library-named" } },
    },
  },
];
