import type { HistoryDb } from "@platform/history";
import type {
  GetSubnetEmissionsHistoryRequest,
  GetSubnetEmissionsHistoryResponse,
} from "@platform/proto/data/v1/market";
import { EmissionSnapshot } from "@platform/proto/events/v1/chain_network";
import { marketKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readModel } from "../shared/asOf.js";
import { asOfOf, notYet } from "../shared/asOfRef.js";
import { checkNetuids, toNetuids } from "../shared/netuids.js";
import { decodePoint, newestPoints } from "../shared/readModel.js";
import { checkSeriesHistory, seriesHistoryPage } from "../shared/seriesHistory.js";
import { describeEmission } from "./emissions.js";

/** `GET /data/v1/subnet-emissions/history?netuid=`: one subnet's emission in the last block of each bucket. */
export async function getSubnetEmissionsHistory(
  redis: Redis,
  request: GetSubnetEmissionsHistoryRequest,
  history: HistoryDb | undefined,
  nowMs = Date.now(),
): Promise<GetSubnetEmissionsHistoryResponse> {
  checkSeriesHistory(request, nowMs);
  const known = toNetuids(await readModel(() => redis.smembers(marketKeys.emissions)));
  const [netuid] = checkNetuids([request.netuid], known, 1);
  const key = marketKeys.emissionPoints(netuid!);
  const [newest] = await newestPoints(redis, [key]);
  if (newest === undefined) throw notYet("emission");
  const asOf = asOfOf(decodePoint(newest, EmissionSnapshot).ref);
  const { interval, readings, page } = await seriesHistoryPage(
    { redis, history, key, maxBlock: newest.b },
    request,
    { scope: ["subnet-emissions/history", netuid], headMs: newest.t },
    nowMs,
  );
  return {
    asOf,
    interval,
    points: readings.map(({ bucketStartMs, point }) => {
      const snapshot = decodePoint(point, EmissionSnapshot);
      return {
        bucketStart: new Date(bucketStartMs).toISOString(),
        blockNumber: String(point.b),
        timestamp: new Date(point.t).toISOString(),
        emission: describeEmission(snapshot, undefined, point.b),
      };
    }),
    page,
  };
}
