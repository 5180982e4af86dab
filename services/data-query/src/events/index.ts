import type { GrpcServiceRegistration } from "@platform/grpc";
import type { Logger } from "@platform/log";
import { DataEventsServiceService } from "@platform/proto/data/v1/events";
import { dataChangeLog } from "@platform/read-models";
import { followReadModelChanges, type Signals } from "@platform/signals";
import { createChangeFeed, type Redis } from "@platform/store";
import { watchData } from "./watchData.js";

/**
 * DataEventsService over the data change log: one reader of its tail per process, woken by the
 * data projections' change signals (and by a timer should one be lost). A resume replays at most
 * `maxReplayEntries`: the log holds up to 100,000 entries, and this group runs beside the market
 * reads.
 */
export function dataEventsGrpcService(deps: {
  redis: Redis;
  log: Logger;
  signals: Signals;
  pollMs: number;
  maxBufferedBytes: number;
  /** A resume's catch-up reads at most this many entries (libs/store changeFeed's maxCatchUp). */
  maxReplayEntries: number;
}): GrpcServiceRegistration & { close(): void } {
  const feed = createChangeFeed({
    redis: deps.redis,
    key: dataChangeLog.key,
    pollMs: deps.pollMs,
    maxCatchUp: deps.maxReplayEntries,
    onError: (error) => deps.log.warn({ err: error }, "reading the data change log failed; retrying"),
  });
  // The data projections' commits append to the change log; intents' do not.
  const unsubscribe = followReadModelChanges(deps.signals, ({ projection }) => {
    if (projection !== "intents") feed.wake();
  });
  return {
    name: "platform.data.v1.DataEventsService",
    definition: DataEventsServiceService,
    implementation: {
      watchData: watchData({ feed, log: deps.log, maxBufferedBytes: deps.maxBufferedBytes }),
    },
    close() {
      unsubscribe();
      feed.close();
    },
  };
}
