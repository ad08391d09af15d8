/*
 * NDJSON output for tests: the JSON objects among what a `seat … --json` process printed.
 */

/** One JSON line, read by its `type`. */
export type JsonLine = { type: string; [key: string]: unknown };

/** Every line of `out` that starts with `{`, as JSON (other lines, such as text or blank ones, are passed over). */
export function jsonLines<T = JsonLine>(out: string): T[] {
  return out
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as T);
}
