import { type BucketAggregate, ORDINAL_SPAN, type SeriesPoint } from "@platform/read-models";
import { execPipeline, type Redis } from "@platform/store";
import { readModel } from "./asOf.js";
import { compareDecimalStrings } from "./numbers.js";

// The layout is libs/read-models' (series.ts, market.ts, subnets.ts): a series is
// a zset of SeriesPoint JSON scored by block * 100000 + log index.

// A series member never changes once written, and every caller asking at a block reads the same
// ones (pool, subnet, validator-set and price snapshots are the network's state, not a caller's), so
// a member's parse and its payload's decode are kept, by the member's text. What is kept is deeply
// frozen: code that tried to change a shared value fails loudly instead of corrupting later answers.
// Bounded by the members' text, 8 MiB (a validator set's snapshot is tens of kilobytes; a pod has
// 256 MiB): the newest points of every series are a few hundred entries, history reads churn the rest.
const MAX_KEPT_TEXT = 8 * 1024 * 1024;
const parsedPoints = new Map<string, SeriesPoint>();
let keptText = 0;
const decodedPayloads = new WeakMap<SeriesPoint, Map<unknown, unknown>>();

/** A series member's point, parsed once per text (see above); the history store's points are the same JSON. */
export const parse = (text: string | undefined): SeriesPoint | undefined => {
  if (text === undefined) return undefined;
  let point = parsedPoints.get(text);
  if (point === undefined) {
    if (keptText + text.length > MAX_KEPT_TEXT) {
      parsedPoints.clear();
      keptText = 0;
    }
    point = deepFreeze(JSON.parse(text) as SeriesPoint);
    parsedPoints.set(text, point);
    keptText += text.length;
  }
  return point;
};

type Pipeline = ReturnType<Redis["pipeline"]>;

/** Runs a pipeline; a Redis failure is READ_MODEL_UNAVAILABLE. */
export async function run(redis: Redis, build: (pipeline: Pipeline) => void): Promise<unknown[]> {
  return readModel(async () => {
    const pipeline = redis.pipeline();
    build(pipeline);
    return execPipeline(pipeline);
  });
}

/** The newest point of each series (undefined where the series is empty). */
export async function newestPoints(redis: Redis, keys: readonly string[]): Promise<(SeriesPoint | undefined)[]> {
  if (keys.length === 0) return [];
  const results = await run(redis, (pipeline) => keys.forEach((key) => pipeline.zrange(key, "-1", "-1")));
  return results.map((members) => parse((members as string[])[0]));
}

/** The state of each series at `block`: its newest point at or below it. */
export async function pointsAtBlock(
  redis: Redis,
  keys: readonly string[],
  block: number,
): Promise<(SeriesPoint | undefined)[]> {
  if (keys.length === 0) return [];
  const top = block * ORDINAL_SPAN + (ORDINAL_SPAN - 1);
  const results = await run(redis, (pipeline) =>
    keys.forEach((key) => pipeline.zrevrangebyscore(key, top, "-inf", "LIMIT", 0, 1)),
  );
  return results.map((members) => parse((members as string[])[0]));
}

/**
 * The series' states at one block every one of them has reached: the lowest of their newest
 * blocks. Records of different subnets travel on different partitions, so one may be a block ahead
 * of another for a moment; answering at the common block keeps every item of an answer consistent
 * with one chain read. Series without any point are left out (undefined).
 */
export async function consistentPoints(
  redis: Redis,
  keys: readonly string[],
): Promise<{ block: number | undefined; points: (SeriesPoint | undefined)[] }> {
  const newest = await newestPoints(redis, keys);
  const blocks = newest.filter((point): point is SeriesPoint => point !== undefined).map((point) => point.b);
  if (blocks.length === 0) return { block: undefined, points: newest };
  const block = Math.min(...blocks);
  const behind = keys.filter((_key, index) => newest[index] !== undefined && newest[index]!.b > block);
  const reread = await pointsAtBlock(redis, behind, block);
  let at = 0;
  return { block, points: newest.map((point) => (point !== undefined && point.b > block ? reread[at++] : point)) };
}

/** The last bucket that ended at or before `timeMs` (its close is the value at that boundary). */
export async function bucketsEndedBy(
  redis: Redis,
  keys: readonly string[],
  timeMs: number,
  size: number,
): Promise<(BucketAggregate | undefined)[]> {
  const [buckets] = await bucketsEndedByEach(redis, keys, [timeMs], size);
  return buckets ?? [];
}

/** bucketsEndedBy for several times at once, in one pipeline: per time, the bucket of each key. */
export async function bucketsEndedByEach(
  redis: Redis,
  keys: readonly string[],
  timesMs: readonly number[],
  size: number,
): Promise<(BucketAggregate | undefined)[][]> {
  if (keys.length === 0) return timesMs.map(() => []);
  const results = await run(redis, (pipeline) => {
    for (const timeMs of timesMs) {
      const latestStart = Math.floor(timeMs / 1_000) - size;
      for (const key of keys) pipeline.zrevrangebyscore(key, latestStart, "-inf", "LIMIT", 0, 1);
    }
  });
  return timesMs.map((_time, at) =>
    keys.map((_key, index) => {
      const text = (results[at * keys.length + index] as string[])[0];
      return text === undefined ? undefined : (JSON.parse(text) as BucketAggregate);
    }),
  );
}

/** The oldest bucket of each series. */
export async function oldestBuckets(redis: Redis, keys: readonly string[]): Promise<(BucketAggregate | undefined)[]> {
  if (keys.length === 0) return [];
  const results = await run(redis, (pipeline) => keys.forEach((key) => pipeline.zrange(key, "0", "0")));
  return results.map((members) => {
    const text = (members as string[])[0];
    return text === undefined ? undefined : (JSON.parse(text) as BucketAggregate);
  });
}

/** The point's payload, decoded with the codec of its series (kept with the point: see parse). */
export function decodePoint<T>(point: SeriesPoint, codec: { decode(bytes: Uint8Array): T }): T {
  let byCodec = decodedPayloads.get(point);
  if (byCodec === undefined) {
    byCodec = new Map();
    decodedPayloads.set(point, byCodec);
  }
  if (byCodec.has(codec)) return byCodec.get(codec) as T;
  const value = deepFreeze(codec.decode(Buffer.from(point.p, "base64")));
  byCodec.set(codec, value);
  return value;
}

/** Freezes a decoded value and everything in it (byte arrays, which cannot be frozen, excepted). */
function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || ArrayBuffer.isView(value) || Object.isFrozen(value)) return value;
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return Object.freeze(value);
}

export { compareDecimalStrings };
