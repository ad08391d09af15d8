/*
 * CLI hooks: what a caller that runs the CLI in-process may inject before a verb runs — the project's test-only
 *   entry (test/support/seat-hooked.ts) is the one that does.
 * Owns: the CliHooks shape and the one place they are held.
 * Does not own: what a hook does (the verb that reads it).
 * Invariant: no environment variable, flag or file turns a hook on; the shipped `seat` bin (main.ts) never calls
 *   installCliHooks, so nothing a user sets can change what it does through here.
 */
import type { InstallTable } from "../agents/index.js";

/** Behaviour a test entry injects; every field is off when absent. */
export interface CliHooks {
  /** `seat hire --visible`: the controller parks each delivery after its fence until it is killed. */
  holdBeforeDispatch?: boolean;
  /** `seat hire --visible`: the coalescing window (ms) of the seat's notifier instead of the default. */
  notifyCoalesceMs?: number;
  /** `seat agents install`: the install table to use instead of the built-in pins (a tiny local package). */
  agentInstallTable?: () => InstallTable;
  /** `seat mcp`: called once the server serves (a stray console write must still not reach stdout). */
  onMcpServing?: () => void;
}

let installed: Readonly<CliHooks> = {};

/** Sets the hooks for the rest of this process (replacing any set before). */
export function installCliHooks(hooks: CliHooks): void {
  installed = { ...hooks };
}

/** The hooks in force: none unless installCliHooks was called in this process. */
export function cliHooks(): Readonly<CliHooks> {
  return installed;
}
