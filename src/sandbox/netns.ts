/*
 * Loopback-only namespace: re-runs the current command inside `unshare -rn` so nothing can leave loopback.
 * Owns: detecting whether unprivileged user+net namespaces work here and re-executing under one.
 * Does not own: what runs inside.
 * Invariant: the mock model and grok run in the same namespace (the whole process tree is moved);
 *   when namespaces are unavailable we say so and run as is.
 */
import { spawnSync } from "node:child_process";

const MARK = "GROK_SEAT_NETNS";

/** True when this process already runs inside the namespace we created. */
export function isInLoopbackNamespace(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[MARK] === "1";
}

/** True when `unshare -rn` works on this machine. */
export function canUnshareNetwork(): boolean {
  const probe = spawnSync("unshare", ["-rn", "true"], { stdio: "ignore" });
  return probe.status === 0;
}

/**
 * Runs argv inside a fresh user+network namespace with loopback up, inheriting stdio, and returns its
 * exit status; returns undefined when namespaces are not available (the caller then runs directly).
 */
export function runInLoopbackNamespace(argv: string[], env: NodeJS.ProcessEnv = process.env): number | undefined {
  if (isInLoopbackNamespace(env) || !canUnshareNetwork()) return undefined;
  const script = 'ip link set lo up 2>/dev/null || true; exec "$@"';
  const result = spawnSync("unshare", ["-rn", "sh", "-c", script, "sh", ...argv], {
    stdio: "inherit",
    env: { ...env, [MARK]: "1" },
  });
  return result.status ?? 1;
}
