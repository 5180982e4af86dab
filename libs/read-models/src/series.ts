/**
 * The series layout the projector's market and subnets projections write and data-query reads: a
 * zset of SeriesPoint JSON scored by ordinal, and for bucketed series a zset per interval of
 * BucketAggregate JSON scored by bucket start (market.ts and subnets.ts say which keys). The
 * projector's shared/series.ts folds points into buckets.
 */

/** Bucket intervals the projection aggregates, in seconds. */
export const BUCKET_SECONDS = { "5m": 300, "1h": 3_600, "4h": 14_400, "1d": 86_400 } as const;
export type BucketName = keyof typeof BUCKET_SECONDS;
export const BUCKET_NAMES = Object.keys(BUCKET_SECONDS) as BucketName[];

/** What a point contributes to its buckets. */
export interface PointMeasure {
  /** The value whose open / high / low / close the bucket keeps (a price). */
  price: string;
  /**
   * A cumulative counter (pool volume): the bucket keeps its value before the bucket and at close.
   * The snapshot's own (`SubnetVolume`), or for a pool point with a block volume (`u`) the fold's
   * sum of the block volumes of every point of the series through this one: it never goes down, so
   * a difference of two values is the volume of the blocks seen between them (a run restart, `w`,
   * does not reset it).
   */
  cumulative?: string;
  /** Further values the bucket shows as of its close (reserves, moving price). */
  close?: Record<string, string>;
  /**
   * The pool's order-flow counters (a pool point whose block volume `u` carries its flow): the
   * fold's never-decreasing sums over every point of the series through this one, as `cumulative`.
   */
  flow?: FlowCounters;
}

/** Order-flow counters: TAO bought and sold (rao) and buys and sells, decimal strings. */
export interface FlowCounters {
  /** TAO staked into the pool (`StakeAdded`), rao. */
  b: string;
  /** TAO paid out by unstaking (`StakeRemoved`), rao. */
  s: string;
  /** `StakeAdded` events. */
  bn: string;
  /** `StakeRemoved` events. */
  sn: string;
}

/** One bucket's aggregate as of a point. */
export interface BucketAggregate {
  /** Bucket start, unix seconds (UTC-aligned). */
  s: number;
  o: string;
  h: string;
  l: string;
  c: string;
  /** Cumulative counter before the bucket's first point (or at it, for a series' first point). */
  v0?: string;
  /** Cumulative counter at close. */
  v1?: string;
  /** Order-flow counters before the bucket's first point and at close, as v0 / v1. */
  f0?: FlowCounters;
  f1?: FlowCounters;
  /** Block of the last point. */
  b: number;
  /** Close values (PointMeasure.close of the last point). */
  x?: Record<string, string>;
}

export interface SeriesPoint {
  /** Ordinal: the position in the series (block * 100000 + log index). */
  o: number;
  /** Block number and hash the point was seen at. */
  b: number;
  h: string;
  /** Block time, ms since the epoch. */
  t: number;
  /** The event itself: base64 of its protobuf bytes. */
  p: string;
  m?: PointMeasure;
  a?: Partial<Record<BucketName, BucketAggregate>>;
  /** What the point's block counts itself (network stats), which the series keeps running in `n`. */
  k?: BlockCounts;
  /** The running counts through this point's block (set on points with `k`). */
  n?: RunningCounts;
  /** What the point's block swapped through its pool (pool series without `SubnetVolume`), which the series keeps running in `w`. */
  u?: BlockVolume;
  /** The running volume through this point's block (set on points with `u`). */
  w?: RunningVolume;
  /**
   * Set on a point whose event is a delta against the series' previous point (a holder set's
   * changed positions, holderPoints.ts). Only the history database keeps such points; Redis keeps
   * every point whole.
   */
  d?: 1;
}

/** A block's own counts, with its parent's hash: a running count goes on only from its parent. */
export interface BlockCounts {
  /** The block's parent hash (lowercase). */
  ph: string;
  /** Extrinsics in the block. */
  x: number;
  /** `Balances.Transfer` events in the block. */
  r: number;
}

/**
 * Counts summed over an unbroken run of blocks, through the point's block: every block from `s` on
 * counted exactly once (a point whose block does not build on the point before it starts a new run).
 */
export interface RunningCounts {
  /** The first block of the run. */
  s: number;
  x: number;
  r: number;
}

/** A block's own pool volume, with its parent's hash: a running volume goes on only from its parent. */
export interface BlockVolume {
  /** The block's parent hash (lowercase). */
  ph: string;
  /** TAO swapped through the pool in the block (its stakes' and unstakes' TAO), rao, a decimal string. */
  v: string;
  /** The block's own order flow (its buys and sells), where the snapshot carries it. */
  f?: FlowCounters;
}

/**
 * A pool's volume summed over an unbroken run of blocks, through the point's block: every block
 * from `s` on counted exactly once, as RunningCounts (a point whose block does not build on the
 * point before it starts a new run).
 */
export interface RunningVolume {
  /** The first block of the run. */
  s: number;
  /** TAO swapped through the pool in blocks `s` through the point's, rao, a decimal string. */
  v: string;
}

export const ORDINAL_SPAN = 100_000;
export const ordinalOf = (block: number, logIndex = 0): number => block * ORDINAL_SPAN + logIndex;
