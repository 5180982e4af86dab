import { invalidArgument } from "@platform/errors";
import { Interval, type PageInfo } from "@platform/proto/common/v1/common";
import {
  type GetSubnetPoolsHistoryRequest,
  type GetSubnetPoolsHistoryResponse,
  type PoolPoint,
  SeriesFormat,
} from "@platform/proto/data/v1/market";
import { PoolSnapshot } from "@platform/proto/events/v1/chain_network";
import { marketKeys, ORDINAL_SPAN, type SeriesPoint } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readModel } from "../shared/asOf.js";
import { asOfOf, notYet } from "../shared/asOfRef.js";
import { resolveInterval } from "../shared/buckets.js";
import { DAY_MS } from "../shared/changes.js";
import { decodeCursor, encodeCursor, queryScope } from "../shared/cursor.js";
import { mulIntByDecimal } from "../shared/decimal.js";
import { checkNetuids, toNetuids } from "../shared/netuids.js";
import { subtract } from "../shared/numbers.js";
import { orderOf, pageLimitOf } from "../shared/page.js";
import { consistentPoints, decodePoint, run } from "../shared/readModel.js";
import { resolveWindow } from "../shared/window.js";
import { bucketNameOf, bucketPage } from "./bucketPage.js";

const INTERVALS = {
  allowed: [
    Interval.INTERVAL_BLOCK,
    Interval.INTERVAL_FIVE_MINUTES,
    Interval.INTERVAL_ONE_HOUR,
    Interval.INTERVAL_FOUR_HOURS,
    Interval.INTERVAL_ONE_DAY,
  ],
  fallback: Interval.INTERVAL_ONE_HOUR,
};
const MAX_SPAN_MS: Partial<Record<Interval, number>> = {
  [Interval.INTERVAL_FIVE_MINUTES]: 7 * DAY_MS,
  [Interval.INTERVAL_ONE_HOUR]: 90 * DAY_MS,
  [Interval.INTERVAL_FOUR_HOURS]: 366 * DAY_MS,
  [Interval.INTERVAL_ONE_DAY]: 100 * 366 * DAY_MS,
};
const MAX_BLOCKS = 7_200n;

/**
 * `GET /data/v1/subnet-pools/history`: pool OHLC per bucket, or one point per snapshot block.
 *
 * as_of and the buckets are two reads; a block committed between them leaves a bucket newer than
 * the as_of read first (block N+1's close under as_of N). Such an answer is read again, as_of
 * first (a new block every 12 s: rarely twice). After three reads the last one is answered as it
 * is: with several subnets, as_of is the block all of them reached, and one subnet a block ahead
 * of another (another partition) shows its newer bucket for that moment.
 */
export async function getSubnetPoolsHistory(
  redis: Redis,
  request: GetSubnetPoolsHistoryRequest,
  nowMs = Date.now(),
): Promise<GetSubnetPoolsHistoryResponse> {
  for (let attempt = 1; ; attempt++) {
    const answer = await readPoolsHistory(redis, request, nowMs);
    const asOfBlock = BigInt(answer.asOf?.blockNumber ?? "0");
    const beyond = answer.points.some((point) => BigInt(point.blockNumber) > asOfBlock);
    if (!beyond || attempt >= READ_ATTEMPTS) return answer;
  }
}

const READ_ATTEMPTS = 3;

async function readPoolsHistory(
  redis: Redis,
  request: GetSubnetPoolsHistoryRequest,
  nowMs: number,
): Promise<GetSubnetPoolsHistoryResponse> {
  if (request.netuids.length === 0)
    throw invalidArgument("INVALID_PARAMETER", "netuid is required", { parameter: "netuid" });
  const interval = resolveInterval(request.window?.interval, INTERVALS);
  if (
    request.format !== SeriesFormat.SERIES_FORMAT_UNSPECIFIED &&
    request.format !== SeriesFormat.SERIES_FORMAT_OHLC &&
    request.format !== SeriesFormat.SERIES_FORMAT_CLOSE
  ) {
    throw invalidArgument("INVALID_PARAMETER", "format must be ohlc or close", { parameter: "format" });
  }
  const close = request.format === SeriesFormat.SERIES_FORMAT_CLOSE;
  const limit = pageLimitOf(request.page, { defaultLimit: 500, maxLimit: 2_000 });
  const order = orderOf(request.order, "asc");
  const known = toNetuids(await readModel(() => redis.smembers(marketKeys.pools)));
  const netuids = checkNetuids(request.netuids, known, 16).sort((a, b) => a - b);
  const cursor = request.page?.cursor ?? "";

  const { block, points } = await consistentPoints(redis, netuids.map(marketKeys.poolPoints));
  if (block === undefined) throw notYet("pool");
  const asOf = asOfOf(
    points
      .map((point) => (point === undefined ? undefined : decodePoint(point, PoolSnapshot)))
      .find((snapshot) => Number(snapshot?.ref?.blockNumber) === block)?.ref,
  );

  if (interval === Interval.INTERVAL_BLOCK) {
    if (request.window?.start !== undefined || request.window?.end !== undefined) {
      throw invalidArgument("INVALID_PARAMETER", "interval=block takes block_start/block_end, not start/end", {
        parameter: "interval",
      });
    }
    const window = resolveWindow(
      {
        interval,
        blockStart: request.window?.blockStart ?? String(Math.max(0, block - Number(MAX_BLOCKS) + 1)),
        blockEnd: request.window?.blockEnd ?? String(block),
      },
      { defaultSpanMs: DAY_MS, maxSpanMs: DAY_MS, maxBlockSpan: MAX_BLOCKS },
      nowMs,
    );
    if (window.kind !== "blocks") throw new Error("unreachable");
    const scope = queryScope([
      "subnet-pools/history",
      netuids,
      interval,
      String(window.start),
      String(window.end),
      order,
      close,
    ]);
    const page = await blockPage(
      redis,
      netuids,
      Number(window.start),
      Math.min(Number(window.end), block),
      order,
      limit,
      cursor,
      scope,
    );
    return {
      asOf,
      interval,
      points: page.items.map(({ netuid, point, previous }) => blockPoint(netuid, point, previous, close)),
      page: page.page,
    };
  }

  if (request.window?.blockStart !== undefined || request.window?.blockEnd !== undefined) {
    throw invalidArgument(
      "INVALID_PARAMETER",
      "bucketed intervals take start/end; block bounds go with interval=block",
      { parameter: "block_start" },
    );
  }
  const window = resolveWindow(request.window, { defaultSpanMs: 7 * DAY_MS, maxSpanMs: MAX_SPAN_MS[interval]! }, nowMs);
  if (window.kind !== "time") throw new Error("unreachable");
  const scope = queryScope(["subnet-pools/history", netuids, interval, window.startMs, window.endMs, order, close]);
  const name = bucketNameOf(interval);
  const page = await bucketPage(redis, {
    series: netuids.map((netuid) => ({ id: netuid, key: marketKeys.poolBuckets(netuid, name) })),
    interval,
    startMs: window.startMs,
    endMs: window.endMs,
    order,
    limit,
    cursor,
    scope,
  });
  const out = page.items.map(({ id, bucket }): PoolPoint => {
    const x = bucket.x ?? {};
    const point: PoolPoint = {
      netuid: id,
      bucketStart: new Date(bucket.s * 1_000).toISOString(),
      blockNumber: String(bucket.b),
      priceOpenTao: close ? "" : bucket.o,
      priceHighTao: close ? "" : bucket.h,
      priceLowTao: close ? "" : bucket.l,
      priceCloseTao: bucket.c,
      taoInRao: x.tao_in_rao ?? "0",
      alphaInNalpha: x.alpha_in_nalpha ?? "0",
      alphaOutNalpha: x.alpha_out_nalpha ?? "0",
      marketCapRao: mulIntByDecimal(BigInt(x.alpha_issuance_nalpha ?? "0"), bucket.c).toString(),
      volumeRao: bucket.v0 !== undefined && bucket.v1 !== undefined ? subtract(bucket.v1, bucket.v0) : "0",
    };
    if (x.moving_price_tao !== undefined) point.movingPriceTao = x.moving_price_tao;
    if (x.root_prop !== undefined) point.rootProp = x.root_prop;
    return point;
  });
  return { asOf, interval, points: out, page: page.page };
}

function blockPoint(netuid: number, point: SeriesPoint, previous: SeriesPoint | undefined, close: boolean): PoolPoint {
  const snapshot = decodePoint(point, PoolSnapshot);
  const out: PoolPoint = {
    netuid,
    bucketStart: snapshot.ref?.blockTimestamp ?? new Date(point.t).toISOString(),
    blockNumber: String(point.b),
    priceOpenTao: close ? "" : snapshot.priceTao,
    priceHighTao: close ? "" : snapshot.priceTao,
    priceLowTao: close ? "" : snapshot.priceTao,
    priceCloseTao: snapshot.priceTao,
    movingPriceTao: snapshot.movingPriceTao,
    taoInRao: snapshot.taoInRao,
    alphaInNalpha: snapshot.alphaInNalpha,
    alphaOutNalpha: snapshot.alphaOutNalpha,
    marketCapRao: mulIntByDecimal(BigInt(snapshot.alphaIssuanceNalpha), snapshot.priceTao).toString(),
    // The block's own volume where the snapshot carries it (and no `SubnetVolume`); otherwise the
    // volume since the previous snapshot, which the first stored snapshot has none to compare with.
    volumeRao:
      snapshot.volumeTotalRao === undefined && snapshot.blockVolumeRao !== undefined
        ? snapshot.blockVolumeRao
        : previous?.m?.cumulative === undefined || snapshot.volumeTotalRao === undefined
          ? "0"
          : subtract(snapshot.volumeTotalRao, previous.m.cumulative),
  };
  if (snapshot.rootProp !== undefined) out.rootProp = snapshot.rootProp;
  return out;
}

/** A page of per-block points of several pools in [first, last] blocks, ordered by (block, netuid). */
async function blockPage(
  redis: Redis,
  netuids: readonly number[],
  first: number,
  last: number,
  order: "asc" | "desc",
  limit: number,
  cursor: string,
  scope: string,
): Promise<{ items: { netuid: number; point: SeriesPoint; previous: SeriesPoint | undefined }[]; page: PageInfo }> {
  let after: { b: number; n: number } | undefined;
  if (cursor !== "") {
    const position = decodeCursor(cursor, scope, { b: /^\d{1,12}$/, n: /^\d{1,5}$/ });
    after = { b: Number(position.b), n: Number(position.n) };
  }
  const low = (after !== undefined && order === "asc" ? Math.max(first, after.b) : first) * ORDINAL_SPAN;
  const high = ((after !== undefined && order === "desc" ? Math.min(last, after.b) : last) + 1) * ORDINAL_SPAN;
  const want = limit + 2;
  // Asc reads one point below the range too, for the first point's volume change.
  const results = await run(redis, (pipeline) => {
    for (const netuid of netuids) {
      const key = marketKeys.poolPoints(netuid);
      if (order === "asc")
        pipeline
          .zrevrangebyscore(key, `(${low}`, "-inf", "LIMIT", 0, 1)
          .zrangebyscore(key, low, `(${high}`, "LIMIT", 0, want);
      // Desc reads on past the range's low end by one point, the previous of its oldest point.
      else pipeline.zrevrangebyscore(key, `(${high}`, "-inf", "LIMIT", 0, want + 1).exists(key);
    }
  });
  const sign = order === "asc" ? 1 : -1;
  const compare = (left: { b: number; n: number }, right: { b: number; n: number }) =>
    left.b !== right.b ? sign * (left.b - right.b) : left.n - right.n;
  const entries: { netuid: number; point: SeriesPoint; previous: SeriesPoint | undefined }[] = [];
  netuids.forEach((netuid, index) => {
    const parsed = (results[index * 2 + (order === "asc" ? 1 : 0)] as string[]).map(
      (text) => JSON.parse(text) as SeriesPoint,
    );
    const chronological = order === "asc" ? parsed : [...parsed].reverse();
    const before = order === "asc" ? (results[index * 2] as string[])[0] : undefined;
    let previous = before === undefined ? undefined : (JSON.parse(before) as SeriesPoint);
    for (const point of chronological) {
      if (point.b >= first) entries.push({ netuid, point, previous });
      previous = point;
    }
  });
  const ordered = entries
    .filter((entry) => after === undefined || compare({ b: entry.point.b, n: entry.netuid }, after) > 0)
    .sort((left, right) => compare({ b: left.point.b, n: left.netuid }, { b: right.point.b, n: right.netuid }));
  const items = ordered.slice(0, limit);
  const hasMore = ordered.length > limit;
  const lastItem = items.at(-1);
  const page: PageInfo = { limit, hasMore };
  if (hasMore && lastItem !== undefined)
    page.nextCursor = encodeCursor(scope, { b: String(lastItem.point.b), n: String(lastItem.netuid) });
  return { items, page };
}
