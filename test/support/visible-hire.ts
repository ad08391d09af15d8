/*
 * The `seat hire --visible` command line of the live visible-seat tests: the rig's real grok in its sandbox project,
 *   the version floor lowered to 1.0.41 (below the verified one), a private tmux server, JSON out.
 */
import type { LiveRig } from "./live-rig.js";

/** `--visible …` flags of `seat hire` on `rig`'s grok and project in tmux server `tmux` (no output format). */
export function visibleSeatFlags(rig: Pick<LiveRig, "binary" | "sandbox">, tmux: string): string[] {
  return [
    "--visible",
    "--grok",
    rig.binary,
    "--cwd",
    rig.sandbox.project,
    "--version-floor",
    "1.0.41",
    "--tmux-socket",
    tmux,
  ];
}

/** `hire --visible …` on `rig`'s grok and project in tmux server `tmux`, JSON out, then `more`. */
export function visibleHireArgs(rig: LiveRig, tmux: string, ...more: string[]): string[] {
  return ["hire", ...visibleSeatFlags(rig, tmux), "--json", ...more];
}
