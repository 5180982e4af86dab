// Deterministic randomness for bench/data's mix (mix.ts): a seeded generator and a Zipf sampler,
// so every run, and both sides of a run, send the same request sequence.

/** A seeded uniform generator on [0, 1) (mulberry32: 32 bits of state, plenty for a request sequence). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Draws ranks 0 … n-1 with P(rank k) ∝ 1 / (k + 1)^s (Zipf's law; s = 1 is the classic form: the
 * second item is asked half as often as the first, the tenth a tenth as often), by a binary search
 * of the cumulative weights.
 */
export function zipfSampler(n: number, s: number, random: () => number): () => number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`a Zipf sampler needs at least one rank, got ${n}`);
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let rank = 0; rank < n; rank += 1) {
    total += 1 / (rank + 1) ** s;
    cumulative[rank] = total;
  }
  return () => {
    const target = random() * total;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle]! > target) high = middle;
      else low = middle + 1;
    }
    return low;
  };
}

/** Picks one of `weights`' keys with probability proportional to its weight. */
export function weightedPicker<K extends string>(weights: Record<K, number>, random: () => number): () => K {
  const entries = Object.entries(weights) as Array<[K, number]>;
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  return () => {
    let target = random() * total;
    for (const [key, weight] of entries) {
      target -= weight;
      if (target < 0) return key;
    }
    return entries[entries.length - 1]![0];
  };
}
