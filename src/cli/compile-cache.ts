/*
 * V8's compile cache for the `seat` process (Node ≥ 22.1, `module.enableCompileCache`): the modules a verb loads are
 *   compiled once per Node version and read back by later runs, a large part of a short verb's start-up CPU.
 * Owns: where that cache lives — a private directory `$XDG_CACHE_HOME/grok-seat/compile-cache` (an absolute
 *   XDG_CACHE_HOME only, else `~/.cache/…`) — and turning it on before any verb's modules load.
 * Does not own: the cache's format or its checks (Node keys each entry on the source's hash and its own version).
 * Invariant: the directory is ours, 0700 and not a symlink, or the cache stays off (code read from a directory
 *   another user can write would be code we run); Node 20 (no such API), NODE_DISABLE_COMPILE_CACHE, or any
 *   failure leaves it off, and nothing here throws. Only compiled module code is written: no prompt, key or output.
 */
import { mkdirSync } from "node:fs";
import module from "node:module";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { privateDirProblem } from "../internal/private-dir.js";

/** The compile cache directory for `env`. */
export function compileCacheDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CACHE_HOME;
  const cacheHome = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".cache");
  return join(cacheHome, "grok-seat", "compile-cache");
}

/** Turns the compile cache on where this Node has one; returns the directory in use, or undefined when off. */
export function startCompileCache(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const enable = (module as { enableCompileCache?: (dir?: string) => { status: number; directory?: string } })
    .enableCompileCache;
  if (typeof enable !== "function" || env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const dir = compileCacheDir(env);
    mkdirSync(join(dir, ".."), { recursive: true, mode: 0o700 });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (privateDirProblem(dir) !== null) return undefined;
    const result = enable(dir);
    // module.constants.compileCacheStatus: ENABLED 1, ALREADY_ENABLED 2 (NODE_COMPILE_CACHE chose another place).
    return result.status === 1 || result.status === 2 ? (result.directory ?? dir) : undefined;
  } catch {
    return undefined;
  }
}
