/*
 * How a turn names its agent and its prompt in records: one rule for named sessions and the supervised turn.
 * Owns: agentLabel (the agent's name, "custom" for an agent command) and promptText (a prompt as plain text).
 * Does not own: the records themselves (sessions/ store, usage/ ledger, journal/).
 */
import type { PromptInput, SessionOptions } from "./options.js";

/** The agent's label in records: its name, or "custom" for an agent command. */
export function agentLabel(options: Pick<SessionOptions, "agent" | "agentCommand">): string {
  return options.agentCommand !== undefined ? "custom" : (options.agent ?? "grok");
}

/** Plain text of a prompt, as a turn records it (content blocks: their text parts, others as `[type]`). */
export function promptText(input: PromptInput): string {
  if (typeof input === "string") return input;
  return input.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
}
