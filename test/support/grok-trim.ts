/*
 * grok's log trim, as recorded from grok 1.0.41 by scripts/record-health-trim.mjs (facts in
 * test/fixtures/health/trim.facts.json, docs/health.md#rotation): past 5 MiB the file is cut to its newest half,
 * on a line boundary, in place (same inode). Tests use it to give the follower the shape grok gives it.
 */
import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";

/** grok 1.0.41 trims unified.jsonl once it is larger than this (bytes). */
export const GROK_TRIM_THRESHOLD_BYTES = 5 * 1024 * 1024;

/** Cuts the file at `path` to its newest half, starting at a line boundary, in place (same inode, like grok). */
export function trimLikeGrok(path: string): { before: number; after: number } {
  const bytes = readFileSync(path);
  const nl = bytes.indexOf(0x0a, Math.floor(bytes.length / 2));
  const kept = nl === -1 ? Buffer.alloc(0) : bytes.subarray(nl + 1);
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, kept, 0, kept.length, 0);
    ftruncateSync(fd, kept.length);
  } finally {
    closeSync(fd);
  }
  return { before: bytes.length, after: kept.length };
}
