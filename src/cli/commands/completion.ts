/*
 * `seat completion bash|zsh|fish`: a shell completion script for `seat` on stdout.
 * Owns: the three scripts, built from the verb table and each verb's flags (read from its help text, so a new
 *   flag completes without a second list to keep).
 * Does not own: the verbs (commands/index.ts).
 */
import { SeatError } from "../../errors.js";
import { parseFlags } from "../args.js";
import { EXIT } from "../output.js";
import { COMMANDS } from "./index.js";
import type { Command } from "./command.js";

const SHELLS = ["bash", "zsh", "fish"] as const;

/** Each verb with the long flags its help names. */
async function verbFlags(): Promise<{ name: string; summary: string; flags: string[] }[]> {
  const out: { name: string; summary: string; flags: string[] }[] = [];
  for (const entry of COMMANDS) {
    const help = entry.name === "completion" ? "" : (await entry.load()).help;
    const flags = [...new Set(help.match(/--[a-z][a-z-]*/g) ?? [])].filter((f) => f !== "--").sort();
    out.push({ name: entry.name, summary: entry.summary, flags: [...flags, "--help"] });
  }
  return out;
}

function bash(verbs: Awaited<ReturnType<typeof verbFlags>>): string {
  const cases = verbs.map((v) => `    ${v.name}) words="${v.flags.join(" ")}" ;;`).join("\n");
  return `# bash completion for seat: eval "$(seat completion bash)", or save it as
# ~/.local/share/bash-completion/completions/seat
_seat() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" words
  local verbs="${verbs.map((v) => v.name).join(" ")}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "$verbs help -h --help -V --version" -- "$cur") )
    return 0
  fi
  case "\${COMP_WORDS[1]}" in
    help) COMPREPLY=( $(compgen -W "$verbs" -- "$cur") ); return 0 ;;
    completion) COMPREPLY=( $(compgen -W "${SHELLS.join(" ")}" -- "$cur") ); return 0 ;;
${cases}
    *) words="" ;;
  esac
  case "$cur" in
    -*|"") COMPREPLY=( $(compgen -W "$words" -- "$cur") ) ;;
  esac
  if [ "\${#COMPREPLY[@]}" -eq 0 ]; then COMPREPLY=( $(compgen -f -- "$cur") ); fi
  return 0
}
complete -F _seat seat
`;
}

function zsh(verbs: Awaited<ReturnType<typeof verbFlags>>): string {
  const cases = verbs.map((v) => `    ${v.name}) compadd -- ${v.flags.join(" ")} ;;`).join("\n");
  return `#compdef seat
# zsh completion for seat: save as _seat in a directory on $fpath, or eval "$(seat completion zsh)"
_seat() {
  local -a verbs
  verbs=(${verbs.map((v) => v.name).join(" ")})
  if (( CURRENT == 2 )); then
    compadd -- $verbs help -h --help -V --version
    return
  fi
  case $words[2] in
    help) compadd -- $verbs ;;
    completion) compadd -- ${SHELLS.join(" ")} ;;
${cases}
  esac
  _files
}
if [ "$funcstack[1]" = "_seat" ]; then _seat "$@"; else compdef _seat seat; fi
`;
}

function fish(verbs: Awaited<ReturnType<typeof verbFlags>>): string {
  const q = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  const lines = [
    "# fish completion for seat: seat completion fish > ~/.config/fish/completions/seat.fish",
    "complete -c seat -f",
    `complete -c seat -n __fish_use_subcommand -a help -d ${q("show a command's help")}`,
    `complete -c seat -n __fish_use_subcommand -s V -l version -d ${q("print the version")}`,
  ];
  for (const v of verbs) {
    lines.push(`complete -c seat -n __fish_use_subcommand -a ${v.name} -d ${q(v.summary)}`);
    for (const flag of v.flags)
      lines.push(`complete -c seat -n '__fish_seen_subcommand_from ${v.name}' -l ${flag.slice(2)}`);
  }
  lines.push(`complete -c seat -n '__fish_seen_subcommand_from help' -a ${q(verbs.map((v) => v.name).join(" "))}`);
  lines.push(`complete -c seat -n '__fish_seen_subcommand_from completion' -a ${q(SHELLS.join(" "))}`);
  return `${lines.join("\n")}\n`;
}

export const completionCommand: Command = {
  name: "completion",
  help: `Usage: seat completion bash|zsh|fish

Prints a completion script for the shell: verbs, each verb's flags, then file names.

Examples:
  seat completion bash > /tmp/seat.bash && . /tmp/seat.bash   # this bash session
  seat completion bash > ~/.local/share/bash-completion/completions/seat
  seat completion zsh > "\${fpath[1]}/_seat"
  seat completion fish > ~/.config/fish/completions/seat.fish`,
  async run(argv) {
    const args = parseFlags("completion", argv, {});
    const [shell, ...extra] = args.positionals;
    if (!(SHELLS as readonly string[]).includes(shell ?? "") || extra.length > 0) {
      throw new SeatError("CLI_USAGE", `seat completion: give one shell, one of ${SHELLS.join(", ")}.`);
    }
    const verbs = await verbFlags();
    process.stdout.write(shell === "bash" ? bash(verbs) : shell === "zsh" ? zsh(verbs) : fish(verbs));
    return EXIT.ok;
  },
};
