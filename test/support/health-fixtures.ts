/*
 * Health fixtures: the grok 1.0.41 logs recorded by scripts/record-health-log.mjs (test/fixtures/health/),
 * read from inside the repository.
 */
import { readFileSync } from "node:fs";

/** The lines of one recorded log file (e.g. "refused.turn.jsonl"). */
export function healthFixture(name: string): string[] {
  return readFileSync(new URL(`../../../test/fixtures/health/${name}`, import.meta.url), "utf8").split("\n").filter((l) => l !== "");
}

/** The session id and grok pid the recorded logs were normalised to. */
export const RECORDED_SCOPE = { sessionId: "00000000-0000-4000-8000-000000000002", pid: 4242 } as const;
