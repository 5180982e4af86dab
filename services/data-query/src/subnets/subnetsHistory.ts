import type { HistoryDb } from "@platform/history";
import type { GetSubnetsHistoryRequest, GetSubnetsHistoryResponse } from "@platform/proto/data/v1/subnets";
import { PoolSnapshot, SubnetSnapshot } from "@platform/proto/events/v1/chain_network";
import { subnetsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readModel } from "../shared/asOf.js";
import { asOfOf, notYet } from "../shared/asOfRef.js";
import { checkNetuids, toNetuids } from "../shared/netuids.js";
import { decodePoint, newestPoints } from "../shared/readModel.js";
import { checkSeriesHistory, seriesHistoryPage } from "../shared/seriesHistory.js";
import { describeSubnet } from "./subnetsLatest.js";

/**
 * `GET /data/v1/subnets/history?netuid=`: one subnet's settings at the end of each bucket. Its
 * snapshots are published when they change, so most buckets carry the one before forward; the head
 * is the subnet's newest pool block (pools are published at every block), as subnets/latest takes it.
 */
export async function getSubnetsHistory(
  redis: Redis,
  request: GetSubnetsHistoryRequest,
  history: HistoryDb | undefined,
  nowMs = Date.now(),
): Promise<GetSubnetsHistoryResponse> {
  checkSeriesHistory(request, nowMs);
  const known = toNetuids(await readModel(() => redis.smembers(subnetsKeys.netuids)));
  const [netuid] = checkNetuids([request.netuid], known, 1);
  const key = subnetsKeys.subnetPoints(netuid!);
  const [pool, subnet] = await newestPoints(redis, [subnetsKeys.poolPoints(netuid!), key]);
  const head = pool ?? subnet;
  if (head === undefined) throw notYet("subnet");
  const asOf = asOfOf(
    pool === undefined ? decodePoint(subnet!, SubnetSnapshot).ref : decodePoint(pool, PoolSnapshot).ref,
  );
  const { interval, readings, page } = await seriesHistoryPage(
    { redis, history, key, maxBlock: head.b },
    request,
    { scope: ["subnets/history", netuid], headMs: head.t },
    nowMs,
  );
  return {
    asOf,
    interval,
    points: readings.map(({ bucketStartMs, point }) => ({
      bucketStart: new Date(bucketStartMs).toISOString(),
      blockNumber: String(point.b),
      timestamp: new Date(point.t).toISOString(),
      subnet: describeSubnet(decodePoint(point, SubnetSnapshot), undefined, undefined, undefined),
    })),
    page,
  };
}
