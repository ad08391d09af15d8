/*
 * Polling for tests: ask a probe again and again until it has an answer, or fail naming what was awaited.
 */

/** How long to keep asking, and how often. */
export interface PollOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** Pause between two probes (ms). */
  everyMs?: number;
}

/** The probe's first truthy answer; throws `timed out waiting for <what>` after `timeoutMs` (default 30 s). */
export async function waitUntil<T>(
  what: string,
  probe: () => T | Promise<T>,
  options: PollOptions = {},
): Promise<NonNullable<T>> {
  const { timeoutMs = 30_000, everyMs = 150 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The probe's first answer that is not `undefined` (false and 0 count); throws like waitUntil. */
export async function untilDefined<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  options: PollOptions = {},
): Promise<T> {
  const { timeoutMs = 30_000, everyMs = 100 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
