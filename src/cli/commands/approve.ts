/*
 * `seat approve ID [--always]`: allow one held approval (from any shell of the same user).
 * Owns: the help text. The body is shared with `seat deny` (approvals.ts).
 */
import { answerCommand } from "./approvals.js";
import type { Command } from "./command.js";

export const approveCommand: Command = {
  name: "approve",
  help: `Usage: seat approve ID [--always] [--json] [--redis URL]

  Allows the held approval ID (see seat approvals); with --always, allows this kind of call for the rest
  of that session. The first answer wins: a later one fails APPROVAL_ALREADY_ANSWERED naming the first;
  an approval whose turn ended fails APPROVAL_EXPIRED; an unknown id APPROVAL_NOT_FOUND.

Examples:
  seat approve ap_3f2c9a
  seat approve ap_3f2c9a --always
  seat approve ap_3f2c9a --redis redis://127.0.0.1:6379`,
  run: (argv) => answerCommand("approve", argv),
};
