/*
 * Command-line parsing for `--agent-command "<argv>"`: split a string into argv WITHOUT a shell.
 * Owns: splitCommandLine() — whitespace separates words; '…' is literal; "…" allows \" and \\; a backslash
 *   outside quotes escapes the next character.
 * Does not own: running anything (no expansion, globbing, variables, pipes or redirections ever happen).
 * Invariant: unbalanced quotes or a trailing backslash are AGENT_COMMAND_INVALID errors, never guessed.
 */
import { SeatError } from "../errors.js";

/** Splits `line` into argv words the way a POSIX shell would quote them, without any expansion. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) word += line[++i];
      else word += c;
      continue;
    }
    if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      continue;
    }
    inWord = true;
    if (c === "'" || c === '"') quote = c;
    else if (c === "\\") {
      if (i + 1 >= line.length)
        throw new SeatError("AGENT_COMMAND_INVALID", "--agent-command ends with a lone backslash.");
      word += line[++i];
    } else word += c;
  }
  if (quote) throw new SeatError("AGENT_COMMAND_INVALID", `--agent-command has an unclosed ${quote} quote.`);
  if (inWord) words.push(word);
  if (words.length === 0)
    throw new SeatError("AGENT_COMMAND_INVALID", "--agent-command is empty; give the agent's command line.");
  return words;
}
