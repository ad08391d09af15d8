/*
 * Timeouts: race one promise against a timer, always clearing the timer.
 * Owns: the race; the caller decides what error a timeout is.
 */

/** Resolves like `work`, or rejects with `onTimeout()` after `ms`; the timer never outlives the race. */
export function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
