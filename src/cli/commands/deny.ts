/*
 * `seat deny ID [--message TEXT]`: deny one held approval (from any shell of the same user).
 * Owns: the help text. The body is shared with `seat approve` (approvals.ts).
 */
import { answerCommand } from "./approvals.js";
import type { Command } from "./command.js";

export const denyCommand: Command = {
  name: "deny",
  help: `Usage: seat deny ID [--message TEXT] [--digest D] [--json] [--redis URL]

  Denies the held approval ID (see seat approvals); the call never runs. --message is a note for the
  record (at most 1000 characters). The first answer wins, as for seat approve. --digest D (the digest
  seat approvals listed) makes the answer land only on that exact target: a held call whose target has
  another digest is not answered (APPROVAL_TARGET_CHANGED) and stays held.

Examples:
  seat deny ap_3f2c9a
  seat deny ap_3f2c9a --message "not on the main branch"`,
  run: (argv) => answerCommand("deny", argv),
};
