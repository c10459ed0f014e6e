/** Deterministic pseudo-random numbers (mulberry32): the same seed gives the same sequence in Node and every browser. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A whole number in [0, n). */
export function randomInt(random: () => number, n: number): number {
  return Math.floor(random() * n);
}

/** One element of a non-empty list. */
export function randomPick<T>(random: () => number, items: readonly T[]): T {
  if (items.length === 0) throw new Error('randomPick: the list is empty');
  return items[randomInt(random, items.length)]!;
}

/** A shuffled copy (Fisher–Yates). */
export function shuffled<T>(random: () => number, items: readonly T[]): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(random, i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
