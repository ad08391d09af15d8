/*
 * Agent check results: each cross-agent test records agent × check → pass / fail / skip / n/a for the
 *   generated docs/agents.md.
 * Owns: agentTest() (a node:test test that records its outcome) and appending result lines to a file in
 *   GROK_SEAT_AGENT_RESULTS_DIR (set by scripts/run-agent-tests.mjs, which renders the table).
 * Does not own: deciding whether an agent is installed (rig.ts) or the check list (checks.ts).
 * Invariant: the outcome recorded is the test's own: a thrown assertion is "fail" and is re-thrown; a check
 *   an agent does not advertise is recorded "n/a" only by an explicit notApplicable() with its reason.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { redactText } from "../../src/internal/redact.js";
import { AGENT_CHECKS } from "./checks.js";
import { requireAgent } from "./rig.js";

/** How one check ended on one agent. */
export type CheckOutcome = "pass" | "fail" | "skip" | "n/a";

/** Appends one result line (agent, check, outcome, note) for the runner. */
export function recordCheck(agent: string, check: string, outcome: CheckOutcome, note = ""): void {
  if (!AGENT_CHECKS.some((c) => c.id === check))
    throw new Error(`unknown agent check id ${JSON.stringify(check)} (add it to test/agents/checks.ts)`);
  const dir = process.env.GROK_SEAT_AGENT_RESULTS_DIR;
  if (!dir) return;
  const clean = (s: string) => {
    const line = redactText(s).replace(/[\t\n\r]/g, " ");
    return line.length > 300 ? `${line.slice(0, 299)}…` : line;
  };
  appendFileSync(join(dir, `${process.pid}.tsv`), `${clean(agent)}\t${clean(check)}\t${outcome}\t${clean(note)}\n`);
}

/**
 * Thrown by a test body, after it asserted what the agent does instead, when the agent does not offer what the
 * check needs: recorded "n/a" with the reason; the test passes (the alternative behaviour was checked), never skips.
 */
export class NotApplicable extends Error {}

/** Marks the running check as not applicable to this agent, saying why. */
export function notApplicable(why: string): never {
  throw new NotApplicable(why);
}

/**
 * A test of `checks` on `agent`: skipped (or failed in required mode) when the agent is not installed; records
 * pass when the body returns, fail when it throws (and re-throws), n/a on notApplicable() (the test still passes).
 */
export function agentTest(
  agent: string,
  checks: readonly string[],
  name: string,
  body: (t: TestContext) => Promise<void>,
): void {
  test(name, async (t) => {
    let installed: boolean;
    try {
      installed = requireAgent(t, agent);
    } catch (error) {
      for (const check of checks) recordCheck(agent, check, "fail", "agent not installed");
      throw error;
    }
    if (!installed) {
      for (const check of checks) recordCheck(agent, check, "skip", "agent not installed");
      return;
    }
    try {
      await body(t);
    } catch (error) {
      if (error instanceof NotApplicable) {
        for (const check of checks) recordCheck(agent, check, "n/a", error.message);
        t.diagnostic(`n/a: ${error.message}`);
        return;
      }
      for (const check of checks)
        recordCheck(agent, check, "fail", error instanceof Error ? error.message.split("\n")[0] : String(error));
      throw error;
    }
    for (const check of checks) recordCheck(agent, check, "pass");
  });
}
