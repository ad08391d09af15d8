/*
 * Process checks for tests: is a pid still running (a zombie or a vanished pid is not)?
 */
import { readProcStat } from "../../src/grok/index.js";

/** True while `pid` exists and is neither a zombie nor dead, per /proc/<pid>/stat. */
export function alive(pid: number): boolean {
  const state = readProcStat(pid)?.state;
  return state !== undefined && state !== "Z" && state !== "X";
}
