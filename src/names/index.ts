/*
 * Names front door: what a named session and a seat worktree may be called, and where each name lives
 *   (a session's scope, a worktree's branch). No I/O: the rooms that store them import these rules.
 * Owns: the list of names other rooms may import from names/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: other rooms import "../names/index.js", never a file inside names/.
 */
export { assertSessionName, scopeFor, GLOBAL_SCOPE } from "./session-names.js";
export { assertWorktreeName, branchOf, defaultWorktreeName, worktreeNameProblem } from "./worktree-names.js";
