import { Interval, type PageInfo } from "@platform/proto/common/v1/common";
import type { BucketAggregate, BucketName } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { bucketStartMs } from "../shared/buckets.js";
import { decodeCursor, encodeCursor } from "../shared/cursor.js";
import type { Order } from "../shared/page.js";
import { run } from "../shared/readModel.js";

export function bucketNameOf(interval: Interval): BucketName {
  switch (interval) {
    case Interval.INTERVAL_FIVE_MINUTES:
      return "5m";
    case Interval.INTERVAL_ONE_HOUR:
      return "1h";
    case Interval.INTERVAL_FOUR_HOURS:
      return "4h";
    case Interval.INTERVAL_ONE_DAY:
      return "1d";
    default:
      throw new RangeError(`no buckets for interval ${interval}`);
  }
}

export interface BucketPageRequest {
  /** Bucket zsets to merge, each with the id that orders equal bucket starts (a netuid). */
  series: readonly { id: number; key: string }[];
  interval: Interval;
  startMs: number;
  endMs: number;
  order: Order;
  limit: number;
  cursor: string;
  scope: string;
}

/**
 * One page of buckets overlapping [startMs, endMs) from one or more series, ordered by (bucket
 * start, id). The cursor is the last (start, id) served. Each series is read from that position
 * for at most limit + 1 buckets, so a page costs one bounded read per series.
 */
export async function bucketPage(
  redis: Redis,
  request: BucketPageRequest,
): Promise<{ items: { id: number; bucket: BucketAggregate }[]; page: PageInfo }> {
  const low = Math.floor(bucketStartMs(request.startMs, request.interval) / 1_000);
  const high = Math.ceil(request.endMs / 1_000);
  let after: { s: number; id: number } | undefined;
  if (request.cursor !== "") {
    const position = decodeCursor(request.cursor, request.scope, { s: /^\d{1,12}$/, i: /^\d{1,10}$/ });
    after = { s: Number(position.s), id: Number(position.i) };
  }
  const want = request.limit + 1;
  const results = await run(redis, (pipeline) => {
    for (const { key } of request.series) {
      if (request.order === "asc")
        pipeline.zrangebyscore(
          key,
          after === undefined ? low : Math.max(low, after.s),
          `(${high}`,
          "LIMIT",
          0,
          want + 1,
        );
      else
        pipeline.zrevrangebyscore(
          key,
          `(${after === undefined ? high : Math.min(high, after.s + 1)}`,
          low,
          "LIMIT",
          0,
          want + 1,
        );
    }
  });
  const merged: { id: number; bucket: BucketAggregate }[] = [];
  request.series.forEach(({ id }, index) => {
    for (const text of results[index] as string[]) merged.push({ id, bucket: JSON.parse(text) as BucketAggregate });
  });
  const sign = request.order === "asc" ? 1 : -1;
  const compare = (left: { s: number; id: number }, right: { s: number; id: number }) =>
    left.s !== right.s ? sign * (left.s - right.s) : left.id - right.id;
  const ordered = merged
    .filter((entry) => after === undefined || compare({ s: entry.bucket.s, id: entry.id }, after) > 0)
    .sort((left, right) => compare({ s: left.bucket.s, id: left.id }, { s: right.bucket.s, id: right.id }));
  const items = ordered.slice(0, request.limit);
  const hasMore = ordered.length > request.limit;
  const last = items.at(-1);
  const page: PageInfo = { limit: request.limit, hasMore };
  if (hasMore && last !== undefined)
    page.nextCursor = encodeCursor(request.scope, { s: String(last.bucket.s), i: String(last.id) });
  return { items, page };
}
