import { runSupervisedTurn } from "grok-seat";

// One supervised turn: listed by `seat ps`, cancellable with `seat cancel`, its held approvals answerable from
// another shell (`seat approvals` / `seat approve ID`), its usage in `seat usage` — the turn `seat run` runs.
const outcome = await runSupervisedTurn({
  prompt: "say hello",
  cwd: process.cwd(),
  approvals: { timeoutMs: 15 * 60_000 }, // a call the policy holds waits for a person, up to 15 minutes
  // named: { name: "work" },           // continue a named session instead (its lease, journal and budget)
  // worktree: { name: "fix-1" },       // work in a seat worktree, committed after the turn (seat diff fix-1)
});
console.log(outcome.sent ? "sent" : "not sent", outcome.result.stopReason, outcome.result.text);
