/**
 * The native network's block time for the stacks whose tests do not measure the chain's cadence.
 * An idle stack's per-block work (chopsticks building each block and validating and applying the
 * simulator's extrinsics, the ingestor reading it, the projections folding it) took 0.93 of a core
 * at `stack up`'s 2 s, measured per process on a quiet machine (chopsticks 45 %, of it ~28 % the
 * simulator's extrinsics; the chain-ingestor 10 %, the simulator 7 %, the projector 7 %; at 6 s
 * chopsticks took 17 %). The end-to-end group runs two stacks on two cores and the CPU was busy
 * throughout it (CI at 3c34969), so what the stacks spend idling is what every test waits for:
 * 4 s halves it.
 */
export const RELAXED_BLOCK_TIME_MS = 4_000;
