/*
 * Waiting for a held approval as another process sees it: `seat approvals --json` polled until the run's approval
 *   shows, or the run ends first (then the failure says what the run printed).
 */
import assert from "node:assert/strict";
import { runSeat, type CliResult } from "./cli.js";
import { jsonLines, type JsonLine } from "./json-lines.js";

/** Polls `seat approvals --json` (every 200 ms, up to 90 s) until an approval matching `pick` shows. */
export async function waitForApproval(
  env: NodeJS.ProcessEnv,
  cwd: string,
  pick: (a: JsonLine) => boolean,
  run: { done: Promise<CliResult> },
): Promise<JsonLine> {
  let ended = false;
  void run.done.then(() => (ended = true));
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline && !ended) {
    const listed = await runSeat(["approvals", "--json"], { env, cwd });
    assert.equal(listed.code, 0, listed.stderr);
    const found = jsonLines(listed.stdout).find((l) => l.type === "approval" && pick(l));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(
    `no approval showed in seat approvals (run ended: ${ended}; run output ${ended ? (await run.done).stdout.slice(-1500) : ""})`,
  );
}
