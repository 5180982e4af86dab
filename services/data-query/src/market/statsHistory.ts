import type { HistoryDb } from "@platform/history";
import type { GetNetworkStatsHistoryRequest, GetNetworkStatsHistoryResponse } from "@platform/proto/data/v1/market";
import { NetworkStatsSnapshot } from "@platform/proto/events/v1/chain_network";
import { marketKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { asOfOf, notYet } from "../shared/asOfRef.js";
import { decodePoint, newestPoints } from "../shared/readModel.js";
import { checkSeriesHistory, seriesHistoryPage } from "../shared/seriesHistory.js";
import { networkStatsFigures } from "./statsFigures.js";

/** `GET /data/v1/network/stats/history`: the network totals at the end of each bucket of a window. */
export async function getNetworkStatsHistory(
  redis: Redis,
  request: GetNetworkStatsHistoryRequest,
  history: HistoryDb | undefined,
  nowMs = Date.now(),
): Promise<GetNetworkStatsHistoryResponse> {
  // A bad window or page is refused before any read.
  checkSeriesHistory(request, nowMs);
  const [newest] = await newestPoints(redis, [marketKeys.statsPoints]);
  if (newest === undefined) throw notYet("network stats");
  const asOf = asOfOf(decodePoint(newest, NetworkStatsSnapshot).ref);
  const { interval, readings, page } = await seriesHistoryPage(
    { redis, history, key: marketKeys.statsPoints, maxBlock: newest.b },
    request,
    { scope: ["network/stats/history"], headMs: newest.t },
    nowMs,
  );
  return {
    asOf,
    interval,
    points: readings.map(({ bucketStartMs, point }) => ({
      bucketStart: new Date(bucketStartMs).toISOString(),
      stats: networkStatsFigures(point),
    })),
    page,
  };
}
