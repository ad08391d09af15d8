/*
 * Terminal notification: for an interactive `seat run` on a terminal, the terminal itself tells the person —
 *   a bell, and the OSC 9 (iTerm2, WezTerm, cmux) and OSC 777 (kitty, foot, VTE) notification sequences.
 * Owns: the escape sequence for one event.
 * Does not own: deciding that the output is a terminal (the CLI checks isTTY on stderr).
 * Invariant: model-chosen text can never end the sequence early or start another one: every control
 *   character (C0, DEL, C1) and `;` in the title is replaced before it is framed.
 */
import { eventTitle } from "./payloads.js";
import type { NotifyEvent } from "../notify-config/index.js";

function plain(text: string, max: number): string {
  const clean = text
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** BEL, then OSC 9 and OSC 777 carrying the event's title and text. */
export function terminalSequence(event: NotifyEvent): string {
  const title = plain(eventTitle(event), 80).replace(/;/g, ",");
  const body = plain(event.text, 200);
  return `\x07\x1b]9;${title}: ${body}\x07\x1b]777;notify;${title};${body}\x07`;
}
