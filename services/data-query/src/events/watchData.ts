import type { ServerWritableStream } from "@grpc/grpc-js";
import { invalidArgument } from "@platform/errors";
import type { Logger } from "@platform/log";
import { Finality } from "@platform/proto/common/v1/common";
import {
  DataTopic,
  type HeadMoved,
  type WatchDataRequest,
  type WatchDataResponse,
} from "@platform/proto/data/v1/events";
import { PoolSnapshot } from "@platform/proto/events/v1/chain_network";
import { PriceObserved } from "@platform/proto/events/v1/oracle_prices";
import { type DataChangeKind, dataChangeLog } from "@platform/read-models";
import { resumePosition, streamChanges } from "@platform/service";
import type { ChangeEntry, ChangeFeed } from "@platform/store";

export interface WatchDataOptions {
  feed: ChangeFeed;
  log: Logger;
  /** A caller that leaves this many bytes unread is ended (RESOURCE_EXHAUSTED). */
  maxBufferedBytes: number;
}

const { fields } = dataChangeLog;

const KIND_OF_TOPIC: Partial<Record<DataTopic, DataChangeKind>> = {
  [DataTopic.DATA_TOPIC_HEADS]: "head",
  [DataTopic.DATA_TOPIC_POOLS]: "pool",
  [DataTopic.DATA_TOPIC_PRICES]: "price",
};

/**
 * `WatchData`: the data read models' changes of the chosen topics after the caller's position,
 * from their change log (libs/read-models changeLogs.ts), then each new one as it is committed.
 */
export function watchData(
  options: WatchDataOptions,
): (call: ServerWritableStream<WatchDataRequest, WatchDataResponse>) => void {
  return (call) =>
    streamChanges<WatchDataRequest, WatchDataResponse>(call, {
      ...options,
      method: "WatchData",
      parse: () => ({ match: matcherOf(call.request.topics), after: resumePosition(call.request.after) }),
      responseOf,
      gap: (position) => ({ position, change: { $case: "gap", value: true } }),
      live: (position) => ({ position, change: { $case: "live", value: true } }),
    });
}

function matcherOf(topics: readonly DataTopic[]): (entry: ChangeEntry) => boolean {
  const kinds = new Set<string>();
  for (const topic of topics) {
    const kind = KIND_OF_TOPIC[topic];
    if (kind === undefined)
      throw invalidArgument("INVALID_PARAMETER", "topics must name heads, pools or prices", { parameter: "topics" });
    kinds.add(kind);
  }
  if (kinds.size === 0)
    throw invalidArgument("INVALID_PARAMETER", "name at least one topic: heads, pools or prices", {
      parameter: "topics",
    });
  return (entry) => kinds.has(entry.fields.get(fields.kind)?.toString() ?? "");
}

function responseOf(entry: ChangeEntry): WatchDataResponse {
  const text = (name: string) => entry.fields.get(name)?.toString() ?? "";
  const bytes = entry.fields.get(fields.bytes) ?? Buffer.alloc(0);
  switch (text(fields.kind) as DataChangeKind) {
    case "pool":
      return { position: entry.id, change: { $case: "pool", value: PoolSnapshot.decode(bytes) } };
    case "price":
      return { position: entry.id, change: { $case: "price", value: PriceObserved.decode(bytes) } };
    default: {
      const head: HeadMoved = {
        readModel: text(fields.readModel),
        asOf: {
          chainId: text(fields.chainId) || "0",
          blockNumber: text(fields.blockNumber) || "0",
          blockHash: text(fields.blockHash),
          parentHash: "",
          blockTimestamp: text(fields.timestamp),
          finality: Finality.FINALITY_UNSPECIFIED,
        },
      };
      return { position: entry.id, change: { $case: "head", value: head } };
    }
  }
}
