/**
 * The series layout the projector's market and subnets projections write and data-query reads: a
 * zset of SeriesPoint JSON scored by ordinal, and for bucketed series a zset per interval of
 * BucketAggregate JSON scored by bucket start (market.ts and subnets.ts say which keys). The
 * projector's market/series.ts folds points into buckets.
 */

/** Bucket intervals the projection aggregates, in seconds. */
export const BUCKET_SECONDS = { "5m": 300, "1h": 3_600, "4h": 14_400, "1d": 86_400 } as const;
export type BucketName = keyof typeof BUCKET_SECONDS;
export const BUCKET_NAMES = Object.keys(BUCKET_SECONDS) as BucketName[];

/** What a point contributes to its buckets. */
export interface PointMeasure {
  /** The value whose open / high / low / close the bucket keeps (a price). */
  price: string;
  /** A cumulative counter (pool volume): the bucket keeps its value before the bucket and at close. */
  cumulative?: string;
  /** Further values the bucket shows as of its close (reserves, moving price). */
  close?: Record<string, string>;
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
}

export const ORDINAL_SPAN = 100_000;
export const ordinalOf = (block: number, logIndex = 0): number => block * ORDINAL_SPAN + logIndex;
