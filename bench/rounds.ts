/*
 * Paired rounds: how a bench times two ways of doing one thing against each other on a shared, noisy machine.
 * Owns: the warm-up pair and the order of the timed runs (swapped every round, so drift falls on both sides alike).
 * Does not own: what is timed or how the samples are summed up (each bench; statistics are bench/report.ts).
 */

/**
 * Runs `a` and `b` once each as a warm-up (results dropped), then `rounds` rounds of both: a then b in even rounds,
 * b then a in odd ones. Each timed result is pushed onto `aRuns` / `bRuns` as it comes, so index i of both is round i.
 */
export async function alternateRounds<A, B>(
  rounds: number,
  a: () => Promise<A>,
  b: () => Promise<B>,
  aRuns: A[],
  bRuns: B[],
): Promise<void> {
  await a();
  await b();
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      aRuns.push(await a());
      bRuns.push(await b());
    } else {
      bRuns.push(await b());
      aRuns.push(await a());
    }
  }
}
