import { Finality } from "@platform/proto/common/v1/common";
import type { CheckpointEvent } from "@platform/proto/events/v1/ingestor_checkpoints";
import type { PriceEvent } from "@platform/proto/events/v1/oracle_prices";
import { decodePayload, TOPICS } from "@platform/proto/topics";
import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import type { BlockHeader } from "../follower/blocks.js";
import { commitPriceRecords } from "./commitPriceRecords.js";
import { priceRecord } from "./priceFeed.js";

const FEED = "0xca11bde05977b3631167028862be2a173976ca11";
const header = (number: bigint, hash: string): BlockHeader => ({
  number,
  hash: hash as Hex,
  parentHash: "0x00",
  timestamp: 1_700_000_000n,
});
const ref = {
  chainId: "31337",
  blockNumber: "11",
  blockHash: "0xb11",
  parentHash: "0xa",
  blockTimestamp: "2026-01-01T00:00:00.000Z",
  finality: Finality.FINALITY_LATEST,
};
const identity = { chainId: 31337, feed: FEED, decimals: 8, asset: "TAO", vs: "usd" } as const;
const logged = priceRecord(
  { answer: 333_12345678n, roundId: 5n, updatedAt: 1_767_225_600n },
  { ...ref, txHash: "0xt", txIndex: 0, logIndex: 1 },
  identity,
);
const latest = priceRecord({ answer: 320_00000000n, roundId: 4n, updatedAt: 1_767_225_500n }, ref, identity);

describe("priceRecord", () => {
  it("names a round by chain, block, log (or latest) and round id, as the network source did, so a re-published round keeps its id", () => {
    expect(logged.eventId).toBe("31337:0xb11:PriceObserved:1:5");
    expect(latest.eventId).toBe("31337:0xb11:PriceObserved:latest:4");
    expect(logged.key).toBe("TAO");
  });

  it("carries the answer scaled by the feed's decimals, the round and the checksummed feed", () => {
    expect(logged.payload.event?.value).toMatchObject({
      asset: "TAO",
      vs: "usd",
      price: "333.12345678",
      answer: "33312345678",
      decimals: 8,
      roundId: "5",
      updatedAt: "2026-01-01T00:00:00.000Z",
      feedAddress: "0xcA11bde05977b3631167028862bE2a173976CA11",
      provider: "chainlink",
      ref: { txHash: "0xt", logIndex: 1 },
    });
  });
});

describe("commitPriceRecords", () => {
  it("publishes a block's rounds on oracle.prices.v1, then the checkpoint with the window", () => {
    const records = commitPriceRecords(
      {
        orphaned: [],
        blocks: [{ header: header(11n, "0xb11"), events: [latest, logged] }],
        tip: header(11n, "0xb11"),
        latestBlockNumber: 12n,
        window: [
          { number: 10n, hash: "0xb10" },
          { number: 11n, hash: "0xb11" },
        ],
      },
      { chainId: 31337, sourceId: "31337:price", now: new Date("2026-01-01T00:00:00Z") },
    );
    expect(records.map((record) => [record.topic, record.key, record.eventType, record.eventId])).toEqual([
      ["oracle.prices.v1", "TAO", "PriceObserved", latest.eventId],
      ["oracle.prices.v1", "TAO", "PriceObserved", logged.eventId],
      ["ingestor.checkpoints.v1", "31337:price", "Checkpoint", undefined],
    ]);
    const round = (decodePayload(TOPICS.oraclePrices, records[1]!.value) as PriceEvent).event;
    expect(round?.$case === "priceObserved" && round.value.answer).toBe("33312345678");
    const checkpoint = decodePayload(TOPICS.ingestorCheckpoints, records[2]!.value) as CheckpointEvent;
    expect(checkpoint.event?.$case === "checkpoint" && checkpoint.event.value).toMatchObject({
      sourceId: "31337:price",
      chainId: "31337",
      blockNumber: "11",
      recentBlocks: [
        { blockNumber: "10", blockHash: "0xb10" },
        { blockNumber: "11", blockHash: "0xb11" },
      ],
    });
  });

  it("takes back the rounds of orphaned blocks with removals on oracle.prices.v1 keyed by the asset, and writes nothing to chain.network.v1", () => {
    const ancestor = header(10n, "0xb10");
    const records = commitPriceRecords(
      {
        orphaned: [{ block: { number: 11n, hash: "0xb11" }, events: [logged] }],
        blocks: [],
        tip: ancestor,
        commonAncestor: ancestor,
        latestBlockNumber: 12n,
        window: [{ number: 10n, hash: "0xb10" }],
      },
      { chainId: 31337, sourceId: "31337:price", now: new Date("2026-01-01T00:00:00Z") },
    );
    expect(records.map((record) => [record.topic, record.key, record.eventType])).toEqual([
      ["oracle.prices.v1", "TAO", "ChainEventRemoved"],
      ["ingestor.checkpoints.v1", "31337:price", "Checkpoint"],
    ]);
    expect(records[0]!.schema).toBe(TOPICS.oraclePrices.schema);
    const removal = decodePayload(TOPICS.oraclePrices, records[0]!.value) as PriceEvent;
    // The market projection takes the round back by its block hash and log index.
    expect(removal.event?.$case === "chainEventRemoved" && removal.event.value).toMatchObject({
      removedEventId: logged.eventId,
      removedEventType: "PriceObserved",
      key: "TAO",
      commonAncestorBlockNumber: "10",
      commonAncestorBlockHash: "0xb10",
      removed: { blockHash: "0xb11", logIndex: 1 },
    });
  });
});
