/** Timing helpers: every figure is the median of `rounds` after one unmeasured warm-up. */

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Runs `work` (which returns how many operations it did) again and again for at least `minMs`; operations per second. */
export function throughput(minMs: number, work: () => number): number {
  let operations = 0;
  const started = performance.now();
  let elapsed = 0;
  do {
    operations += work();
    elapsed = performance.now() - started;
  } while (elapsed < minMs);
  return (operations * 1000) / elapsed;
}

/** Milliseconds one run of `work` takes. */
export async function elapsedMs(work: () => Promise<unknown> | unknown): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/**
 * One warm-up and `rounds` measured runs of each subject, the subjects interleaved within a round
 * (a drifting machine then skews no subject more than another); per subject, each round's figure.
 */
export async function interleaved<S>(
  subjects: S[],
  rounds: number,
  measure: (subject: S, round: number) => Promise<number>,
): Promise<Map<S, number[]>> {
  const figures = new Map<S, number[]>(subjects.map((subject) => [subject, []]));
  for (let round = 0; round <= rounds; round++) {
    for (const subject of round % 2 === 0 ? subjects : [...subjects].reverse()) {
      const figure = await measure(subject, round);
      if (round > 0) figures.get(subject)?.push(figure);
    }
  }
  return figures;
}
