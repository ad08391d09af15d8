/*
 * V8's compile cache for the `seat` process (Node 22.8 and later, `module.enableCompileCache`): the modules a verb
 *   loads are compiled once per Node version and read back by later runs, a large part of a short verb's start-up
 *   CPU.
 * Owns: where that cache lives — `$XDG_CACHE_HOME/grok-seat/compile-cache` (an absolute XDG_CACHE_HOME only, else
 *   `$HOME/.cache/…`, an absolute HOME only) — the checks that make it safe, and turning it on before any verb's
 *   modules load.
 * Does not own: the cache's format or its own checks (Node keys each entry on the source's hash and its version).
 * Invariant: a cached entry is code we run, so the cache is on only when no other user can change what its path
 *   leads to: every directory from `/` down to the cache home (as written and as resolved) is ours or root's and not
 *   writable by others unless sticky (as /tmp), `grok-seat/` is ours, not a symlink and writable by us alone, and
 *   `compile-cache/` is ours, 0700 and not a symlink. Nothing is created before the directories above it pass. Node 20
 *   (no such API), NODE_DISABLE_COMPILE_CACHE, a failed check or any error leaves it off; nothing here throws.
 *   What is written is the compiled code of the modules `seat` loads (ours, its packages', and a fleet's tool
 *   modules), in that private directory.
 */
import { lstatSync, mkdirSync, realpathSync, statSync, type Stats } from "node:fs";
import module from "node:module";
import { dirname, isAbsolute, join } from "node:path";
import { ownUid, privateDirProblem } from "../internal/private-dir.js";

/** The compile cache directory for `env`, or undefined when neither XDG_CACHE_HOME nor HOME is an absolute path. */
export function compileCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env.XDG_CACHE_HOME;
  const home = env.HOME;
  const cacheHome = xdg && isAbsolute(xdg) ? xdg : home && isAbsolute(home) ? join(home, ".cache") : undefined;
  return cacheHome === undefined ? undefined : join(cacheHome, "grok-seat", "compile-cache");
}

/** A directory no other user can change: ours or root's, and not writable by group or others unless sticky. */
function trusted(stat: Stats, uid: number): boolean {
  if (!stat.isDirectory() || (stat.uid !== uid && stat.uid !== 0)) return false;
  return (stat.mode & 0o022) === 0 || (stat.mode & 0o1000) !== 0;
}

/** Every existing directory from `path` up to `/`, as written and as resolved, is trusted. */
function trustedChain(path: string, uid: number): boolean {
  let existing = path;
  for (;;) {
    try {
      statSync(existing);
      break;
    } catch {
      if (dirname(existing) === existing) return false;
      existing = dirname(existing);
    }
  }
  for (const start of [existing, realpathSync(existing)]) {
    for (let p = start; ; p = dirname(p)) {
      if (!trusted(statSync(p), uid)) return false;
      if (dirname(p) === p) break;
    }
  }
  return true;
}

/** Turns the compile cache on where this Node has one; returns the directory in use, or undefined when off. */
export function startCompileCache(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const enable = (module as { enableCompileCache?: (dir?: string) => { status: number; directory?: string } })
    .enableCompileCache;
  if (typeof enable !== "function" || env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const dir = compileCacheDir(env);
    if (dir === undefined) return undefined;
    const uid = ownUid();
    const ours = dirname(dir);
    if (!trustedChain(dirname(ours), uid)) return undefined;
    mkdirSync(ours, { recursive: true, mode: 0o700 });
    const grokSeat = lstatSync(ours);
    // The directories above passed and no one else can change them: grok-seat/ itself is all that is left to check.
    if (grokSeat.isSymbolicLink() || grokSeat.uid !== uid || !trusted(grokSeat, uid)) return undefined;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (privateDirProblem(dir, uid) !== null) return undefined;
    const result = enable(dir);
    // module.constants.compileCacheStatus: ENABLED 1, ALREADY_ENABLED 2 (NODE_COMPILE_CACHE chose another place).
    return result.status === 1 || result.status === 2 ? (result.directory ?? dir) : undefined;
  } catch {
    return undefined;
  }
}
