import { Finality } from "@platform/proto/common/v1/common";
import type { CheckpointEvent } from "@platform/proto/events/v1/ingestor_checkpoints";
import { decodePayload, TOPICS } from "@platform/proto/topics";
import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import type { BlockHeader } from "../../follower/blocks.js";
import { commitNetworkRecords } from "./commitNetworkRecords.js";
import type { NetworkRecord } from "./networkRecord.js";

const header = (number: bigint, hash: string): BlockHeader => ({
  number,
  hash: hash as Hex,
  parentHash: "0x00",
  timestamp: 1_700_000_000n,
});
const ref = (hash: string) => ({
  chainId: "945",
  blockNumber: "11",
  blockHash: hash,
  parentHash: "0xa",
  blockTimestamp: "2026-01-01T00:00:00.000Z",
  finality: Finality.FINALITY_LATEST,
});

const activity: NetworkRecord = {
  topic: "chain.network.v1",
  key: "0xabc",
  eventId: "945:0xb11:AccountActivity:0:0xabc",
  eventType: "AccountActivity",
  ref: { ...ref("0xb11"), txHash: "0xt", txIndex: 0 },
  payload: {
    event: {
      $case: "accountActivity",
      value: { account: undefined, activityId: "11-0-0", type: 1, direction: 2, success: true, source: 2 } as never,
    },
  },
};
describe("commitNetworkRecords", () => {
  it("publishes a block's records on their topics, then the checkpoint with the window", () => {
    const records = commitNetworkRecords(
      {
        orphaned: [],
        blocks: [{ header: header(11n, "0xb11"), events: [activity] }],
        tip: header(11n, "0xb11"),
        latestBlockNumber: 12n,
        window: [
          { number: 10n, hash: "0xb10" },
          { number: 11n, hash: "0xb11" },
        ],
      },
      { chainId: 945, sourceId: "945:network", now: new Date("2026-01-01T00:00:00Z") },
    );
    expect(records.map((record) => [record.topic, record.key, record.eventType, record.eventId])).toEqual([
      ["chain.network.v1", "0xabc", "AccountActivity", activity.eventId],
      ["ingestor.checkpoints.v1", "945:network", "Checkpoint", undefined],
    ]);
    const checkpoint = decodePayload(TOPICS.ingestorCheckpoints, records[1]!.value) as CheckpointEvent;
    expect(checkpoint.event?.$case === "checkpoint" && checkpoint.event.value).toMatchObject({
      sourceId: "945:network",
      blockNumber: "11",
      blockHash: "0xb11",
      recentBlocks: [
        { blockNumber: "10", blockHash: "0xb10" },
        { blockNumber: "11", blockHash: "0xb11" },
      ],
    });
  });

  it("removes every record of orphaned blocks on chain.network.v1 under its own key", () => {
    const ancestor = header(10n, "0xb10");
    const records = commitNetworkRecords(
      {
        orphaned: [{ block: { number: 11n, hash: "0xb11" }, events: [activity] }],
        blocks: [],
        tip: ancestor,
        commonAncestor: ancestor,
        latestBlockNumber: 12n,
        window: [{ number: 10n, hash: "0xb10" }],
      },
      { chainId: 945, sourceId: "945:network", now: new Date("2026-01-01T00:00:00Z") },
    );
    expect(records.map((record) => [record.topic, record.key, record.eventType])).toEqual([
      ["chain.network.v1", "0xabc", "ChainEventRemoved"],
      ["ingestor.checkpoints.v1", "945:network", "Checkpoint"],
    ]);
    const removal = decodePayload(TOPICS.chainNetwork, records[0]!.value);
    expect(removal.event?.$case === "chainEventRemoved" && removal.event.value).toMatchObject({
      removedEventId: activity.eventId,
      removedEventType: "AccountActivity",
      key: "0xabc",
      commonAncestorBlockNumber: "10",
      commonAncestorBlockHash: "0xb10",
      removed: { blockHash: "0xb11", txHash: "0xt" },
    });
  });
});
