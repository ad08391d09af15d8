/*
 * Seeded pseudo-random numbers for benches whose kill and disconnect points must replay from a seed.
 * Owns: mulberry32, the one generator the benches use. Does not own: what a bench draws with it.
 */

/** A deterministic generator (mulberry32): the same `seed` gives the same sequence of numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
