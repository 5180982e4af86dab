/** A seeded generator with the few draws the simulators need (native activity, price rounds). */
export interface NetworkRandom {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, bound). */
  int(bound: number): number;
  /** Uniform bigint in [min, max]. */
  bigint(min: bigint, max: bigint): bigint;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

/** mulberry32 over a 32-bit hash of the seed string: the same seed replays the same choices. */
export function networkRandom(seed: string): NetworkRandom {
  let state = hashSeed(seed);
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (bound: number) => Math.floor(next() * bound);
  return {
    next,
    int,
    // 1e6 steps across the range are plenty for amounts, and stay exact in a double.
    bigint: (min, max) => min + ((max - min) * BigInt(int(1_000_001))) / 1_000_000n,
    pick: (items) => {
      if (items.length === 0) throw new RangeError("pick from an empty list");
      return items[int(items.length)]!;
    },
    chance: (probability) => next() < probability,
  };
}

/** FNV-1a, enough to spread any seed string over the generator's 32-bit state. */
function hashSeed(seed: string): number {
  let hash = 0x811c9dc5;
  for (const char of seed) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
