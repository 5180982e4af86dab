import type { ConsumedRecord } from "@platform/bus";
import type { Logger } from "@platform/log";
import { Finality } from "@platform/proto/common/v1/common";
import type { PriceEvent } from "@platform/proto/events/v1/oracle_prices";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import { describe, expect, it } from "vitest";
import { decodeMarketBatch } from "./decode.js";

const removed = {
  chainId: "945",
  blockNumber: "30",
  blockHash: "0xb30",
  parentHash: "0xb29",
  blockTimestamp: "2026-01-01T00:00:00.000Z",
  finality: Finality.FINALITY_LATEST,
  txHash: "0x01",
  logIndex: 2,
};

function priceRecord(payload: PriceEvent, offset: string): ConsumedRecord {
  const eventType = eventTypeOf(payload);
  return {
    topic: TOPICS.oraclePrices.name,
    partition: 0,
    offset,
    timestamp: "0",
    key: "TAO",
    value: Buffer.from(encodePayload(TOPICS.oraclePrices, payload)),
    eventId: undefined,
    eventType,
    schema: TOPICS.oraclePrices.schema,
    traceparent: undefined,
    tracestate: undefined,
    headers: { "event-type": eventType, schema: TOPICS.oraclePrices.schema },
  };
}

describe("decodeMarketBatch: price removals", () => {
  it("reads a round's removal on oracle.prices.v1, where the price source publishes it", () => {
    const errors: unknown[] = [];
    const log = { error: (...args: unknown[]) => errors.push(args) } as unknown as Logger;
    const changes = decodeMarketBatch(
      [
        priceRecord(
          {
            event: {
              $case: "chainEventRemoved",
              value: {
                removed,
                removedEventId: "945:0xb30:PriceObserved:2:7",
                removedEventType: "PriceObserved",
                key: "TAO",
                commonAncestorBlockNumber: "29",
                commonAncestorBlockHash: "0xb29",
                detectedAt: "2026-01-01T00:00:01.000Z",
              },
            },
          },
          "5",
        ),
      ],
      log,
    );
    expect(errors).toEqual([]);
    expect(changes).toEqual([
      { kind: "removed", what: "price", asset: "TAO", block: 30, hash: "0xb30", identity: "0xb30:2" },
    ]);
  });
});
