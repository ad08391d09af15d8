/*
 * `seat approve ID [--always]`: allow one held approval (from any shell of the same user).
 * Owns: the help text. The body is shared with `seat deny` (approvals.ts).
 */
import { answerCommand } from "./approvals.js";
import type { Command } from "./command.js";

export const approveCommand: Command = {
  name: "approve",
  help: `Usage: seat approve ID [--always] [--digest D] [--json] [--redis URL]

  Allows the held approval ID (see seat approvals); with --always, allows this kind of call for the rest
  of that session. The first answer wins: a later one fails APPROVAL_ALREADY_ANSWERED naming the first;
  an approval whose turn ended or whose deadline passed fails APPROVAL_EXPIRED (also once its run has
  exited); an unknown id APPROVAL_NOT_FOUND. --digest D (the digest seat approvals listed for the exact
  target you read) makes the answer land only on that target: if the held call's target has another
  digest, nothing is answered or run (APPROVAL_TARGET_CHANGED, exit 1) and the approval stays held.

Examples:
  seat approve ap_3f2c9a
  seat approve ap_3f2c9a --always
  seat approve ap_3f2c9a0b1d2e3f40 --digest 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
  seat approve ap_3f2c9a --redis redis://127.0.0.1:6379`,
  run: (argv) => answerCommand("approve", argv),
};
