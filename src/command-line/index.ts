/*
 * Command-line front door: a string such as `--agent-command "<argv>"` or `seat ps --on-waiting "<argv>"` split
 *   into argv words without a shell.
 * Owns: the list of names other rooms may import from command-line/.
 * Invariant: other rooms import "../command-line/index.js", never a file inside command-line/.
 */
export { splitCommandLine } from "./command-line.js";
