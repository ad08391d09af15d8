/*
 * Process checks for tests: is a pid still running (a zombie or a vanished pid is not)? The product's own answer.
 */
import { processAlive } from "../../src/internal/process-alive.js";

/** True while `pid` exists and is neither a zombie nor dead (internal/process-alive.ts). */
export function alive(pid: number): boolean {
  return processAlive(pid);
}
