/*
 * Health fixtures: the grok 1.0.41 logs recorded by scripts/record-health-log.mjs (test/fixtures/health/),
 * read from the copy the build puts beside the compiled tests (dist/test/fixtures/health/), like the transcripts,
 * so a compiled suite run from another tree (the Node 24 CI run) finds them too.
 */
import { existsSync, readFileSync } from "node:fs";

/** The lines of one recorded log file (e.g. "refused.turn.jsonl"). */
export function healthFixture(name: string): string[] {
  const file = new URL(`../fixtures/health/${name}`, import.meta.url);
  if (!existsSync(file))
    throw new Error(`missing fixture test/fixtures/health/${name}: run \`node scripts/record-health-log.mjs\``);
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "");
}

/** The session id and grok pid the recorded logs were normalised to. */
export const RECORDED_SCOPE = { sessionId: "00000000-0000-4000-8000-000000000002", pid: 4242 } as const;

/** When the recorded turn of `scenario` ("refused", "dns") was sent: the stamp of its first appended line. */
export function recordedSentAtMs(scenario: string): number {
  const first = healthFixture(`${scenario}.turn.jsonl`)[0] ?? "";
  return Date.parse(/"ts":"([^"]*)"/.exec(first)?.[1] ?? "");
}

/** `line` as grok would have stamped it at `atMs` (a recorded line replayed into a live turn must carry a live time). */
export function restamp(line: string, atMs: number = Date.now()): string {
  return line.replace(/"ts":"[^"]*"/, `"ts":"${new Date(atMs).toISOString()}"`);
}
