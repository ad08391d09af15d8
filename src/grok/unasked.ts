/*
 * What grok runs without asking: the shell commands grok 1.0.41 executes with no `session/request_permission`,
 *   so no permission gate of ours ever sees them, and the one setting that makes grok ask for every command.
 * Owns: the measured facts (UNASKED_SHELL_EXAMPLES, ASKED_SHELL_EXAMPLES), the remedy text, and
 *   shellGateReport() — whether a config.toml grok reads carries `[permission] ask = ["Bash"]`.
 * Does not own: deciding a request (permissions/) or writing any config: grok-seat never writes a user's or a
 *   project's config.toml, and grok 1.0.41 has no per-process way to ask for every command (GROK_CONFIG and
 *   GROK_CONFIG_PATH ignore `permission`, `--plugin-dir` plugins' hooks are not loaded, `session/set_mode`
 *   ask/plan/default change nothing, `grok agent` has no --permission-mode).
 * Measured with scripts/record-unasked-commands.mjs; pinned on the real binary by test/live/runtime/unasked-commands.test.ts.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The grok version the facts below were measured on. */
export const UNASKED_FACTS_VERSION = "1.0.41";

/**
 * Commands grok 1.0.41 ran without asking (no permission request), outside its cwd too: its documented read-only
 * list (ls, cat, pwd, date, wc, grep, git status, …), `echo`/`printf`, and writers `touch` and `mkdir`, alone or
 * chained after another such command.
 */
export const UNASKED_SHELL_EXAMPLES: readonly string[] = Object.freeze([
  "ls",
  "pwd",
  "date",
  "cat FILE",
  "wc -c FILE",
  "grep PATTERN FILE",
  "git status",
  "echo TEXT",
  "printf TEXT",
  "touch FILE",
  "touch FILE && echo TEXT",
  "mkdir DIR",
  "ls && touch FILE",
]);

/** Commands grok 1.0.41 asked about (so the gate decides them): redirects, cp, rm, sort -o, uniq IN OUT, sh -c, true. */
export const ASKED_SHELL_EXAMPLES: readonly string[] = Object.freeze([
  "echo TEXT > FILE",
  "cp SRC DST",
  "rm -f FILE",
  "sort -o OUT IN",
  "uniq IN OUT",
  "sh -c '…'",
  "true",
]);

/** The config grok reads that makes it ask before every shell command (measured on 1.0.41). */
export const ASK_EVERY_COMMAND_TOML = '[permission]\nask = ["Bash"]';

/** Where shellGateReport looked and what it found. */
export interface ShellGateReport {
  /** True when a config.toml grok reads has an ask rule covering every shell command. */
  asksForEveryCommand: boolean;
  /** The config file holding that rule, when found. */
  configuredIn?: string;
  /** The files read (grok's user config and the cwd's project config). */
  checked: string[];
  /** Examples of what grok runs unasked when no such rule is set. */
  unaskedExamples: readonly string[];
  /** One sentence for people: the fact and the remedy. */
  note: string;
}

/** The `[permission]` table's text of a config.toml (empty when absent). */
function permissionTable(toml: string): string {
  const lines = toml.split(/\r?\n/);
  const out: string[] = [];
  let inside = false;
  for (const line of lines) {
    const header = /^\s*\[([^\]]+)\]\s*(?:#.*)?$/.exec(line);
    if (header) inside = header[1]!.trim() === "permission";
    else if (inside) out.push(line);
  }
  return out.join("\n");
}

/** True when `toml` (a config.toml's text) has `[permission] ask = [ … "Bash" … ]`, the measured ask-every-command rule. */
export function hasAskEveryCommandRule(toml: string): boolean {
  const table = permissionTable(toml);
  const ask = /^\s*ask\s*=\s*\[([\s\S]*?)\]/m.exec(table);
  if (!ask) return false;
  return /(^|[\s,[])"Bash"(?=\s*(,|$))/m.test(ask[1]!) || /(^|[\s,])'Bash'(?=\s*(,|$))/m.test(ask[1]!);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Reads grok's user config (`$GROK_HOME/config.toml`, default `~/.grok`) and `<cwd>/.grok/config.toml` for the rule. */
export function shellGateReport(options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): ShellGateReport {
  const env = options.env ?? process.env;
  const grokHome = env.GROK_HOME && env.GROK_HOME !== "" ? env.GROK_HOME : join(env.HOME ?? homedir(), ".grok");
  const checked = [join(grokHome, "config.toml"), join(options.cwd ?? process.cwd(), ".grok", "config.toml")];
  const configuredIn = checked.find((path) => {
    const text = readText(path);
    return text !== undefined && hasAskEveryCommandRule(text);
  });
  const note = configuredIn
    ? `grok asks before every shell command ([permission] ask = ["Bash"] in ${configuredIn}), so the execute gate sees each one.`
    : `grok ${UNASKED_FACTS_VERSION} runs some shell commands without asking (${UNASKED_SHELL_EXAMPLES.slice(0, 11).join(", ")}, …), ` +
      `so the execute gate never sees them; add a [permission] table with ask = ["Bash"] to ${checked[0]} to be asked for every command.`;
  return {
    asksForEveryCommand: configuredIn !== undefined,
    ...(configuredIn ? { configuredIn } : {}),
    checked,
    unaskedExamples: UNASKED_SHELL_EXAMPLES,
    note,
  };
}
