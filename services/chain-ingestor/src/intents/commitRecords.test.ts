import { Finality } from "@platform/proto/common/v1/common";
import { IntentsChainEvent } from "@platform/proto/events/v1/chain_intents";
import { CheckpointEvent } from "@platform/proto/events/v1/ingestor_checkpoints";
import { IntentNotificationEvent, TxOutcome } from "@platform/proto/events/v1/intents_notifications";
import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import type { BlockHeader } from "../follower/blocks.js";
import { commitRecords } from "./commitRecords.js";
import type { IntentsEvent } from "./intentsEvent.js";
import { resolutionRecord, resolveDropped, resolveMined } from "./notifiedTxResolution.js";
import { settlerTopics } from "./settlerEvents.js";

const hash = (n: number, fork = "a"): Hex => `0x${fork.repeat(2)}${n.toString(16).padStart(62, "0")}`;
const header = (n: number, fork = "a"): BlockHeader => ({
  number: BigInt(n),
  hash: hash(n, fork),
  parentHash: hash(n - 1, fork),
  timestamp: BigInt(1_900_000_000 + n),
});
const orderId = `0x${"ab".repeat(32)}`;

function event(n: number, fork = "a"): IntentsEvent {
  const ref = {
    chainId: "31337",
    blockNumber: String(n),
    blockHash: hash(n, fork),
    parentHash: hash(n - 1, fork),
    blockTimestamp: "2030-01-01T00:00:00.000Z",
    txHash: hash(900 + n),
    txIndex: 0,
    logIndex: 2,
    finality: Finality.FINALITY_LATEST,
  };
  return {
    key: orderId,
    eventId: `31337:${hash(n, fork)}:2`,
    eventType: "OrderFilled",
    ref,
    payload: {
      event: {
        $case: "orderFilled",
        value: {
          ref,
          orderId,
          settler: "0x01",
          filler: "0x02",
          recipient: "0x",
          outputToken: "0x",
          outputAmount: "1",
          repaymentAddress: "0x",
        },
      },
    },
  };
}

const context = {
  chainId: 31337,
  sourceId: "31337:intents",
  depths: { safeDepth: 1, finalizedDepth: 3 },
  now: new Date("2030-01-01T00:00:05.000Z"),
};

describe("commitRecords", () => {
  it("publishes the blocks' events with their ids, then the head, then the checkpoint", () => {
    const records = commitRecords(
      {
        orphaned: [],
        blocks: [
          { header: header(10), events: [event(10)] },
          { header: header(11), events: [] },
        ],
        tip: header(11),
        latestBlockNumber: 20n,
        window: [header(10), header(11)],
      },
      context,
    );
    expect(records.map((record) => [record.topic, record.key, record.eventType])).toEqual([
      ["chain.intents.v1", orderId, "OrderFilled"],
      ["chain.intents.v1", "head:31337", "ChainHeadAdvanced"],
      ["ingestor.checkpoints.v1", "31337:intents", "Checkpoint"],
    ]);
    expect(records[0]!.eventId).toBe(`31337:${hash(10)}:2`);
    const head = IntentsChainEvent.decode(records[1]!.value).event;
    expect(head).toMatchObject({
      $case: "chainHeadAdvanced",
      value: {
        head: { blockNumber: "11", blockHash: hash(11), finality: Finality.FINALITY_FINALIZED },
        safeBlockNumber: "19",
        finalizedBlockNumber: "17",
      },
    });
    const checkpoint = CheckpointEvent.decode(records[2]!.value).event?.value;
    expect(checkpoint).toMatchObject({
      sourceId: "31337:intents",
      chainId: "31337",
      blockNumber: "11",
      blockHash: hash(11),
      updatedAt: "2030-01-01T00:00:05.000Z",
    });
    expect(checkpoint?.recentBlocks.map((block) => block.blockNumber)).toEqual(["10", "11"]);
  });

  it("names every orphaned event in a removal keyed like it, and checkpoints the common ancestor", () => {
    const records = commitRecords(
      {
        orphaned: [
          { block: header(11), events: [event(11)] },
          { block: header(12), events: [event(12)] },
        ],
        blocks: [],
        tip: header(10),
        commonAncestor: header(10),
        latestBlockNumber: 12n,
        window: [header(9), header(10)],
      },
      context,
    );
    const removals = records.filter((record) => record.eventType === "ChainEventRemoved");
    expect(removals.map((record) => record.key)).toEqual([orderId, orderId]);
    expect(IntentsChainEvent.decode(removals[1]!.value).event).toMatchObject({
      $case: "chainEventRemoved",
      value: {
        removed: { blockHash: hash(12), logIndex: 2 },
        removedEventId: `31337:${hash(12)}:2`,
        removedEventType: "OrderFilled",
        key: orderId,
        commonAncestorBlockNumber: "10",
        commonAncestorBlockHash: hash(10),
      },
    });
    expect(CheckpointEvent.decode(records.at(-1)!.value).event?.value.blockNumber).toBe("10");
  });
});

describe("notified transaction resolution", () => {
  const settler: Hex = "0x00000000000000000000000000000000000c0ffe";
  const receipt = (status: Hex) => ({
    transactionHash: hash(77).toUpperCase().replace("0X", "0x") as Hex,
    transactionIndex: "0x3" as Hex,
    blockHash: hash(30),
    blockNumber: "0x1e" as Hex,
    from: "0x00000000000000000000000000000000000000aa" as Hex,
    status,
    logs: [
      { address: settler, topics: [settlerTopics.open, hash(1, "c")], data: "0x" as Hex, logIndex: "0x0" as Hex },
      {
        address: "0x00000000000000000000000000000000000000bb" as Hex,
        topics: [settlerTopics.open, hash(2, "c")],
        data: "0x" as Hex,
        logIndex: "0x1" as Hex,
      },
    ],
  });

  it("SUCCEEDED lists the Open logs of this settler only; REVERTED lists none; DROPPED has no block", () => {
    const now = new Date("2030-01-01T00:00:00.000Z");
    const succeeded = resolveMined({ chainId: 31337, receipt: receipt("0x1"), block: header(30), settler, now });
    expect(succeeded).toMatchObject({
      originChainId: "31337",
      txHash: hash(77),
      outcome: TxOutcome.TX_OUTCOME_SUCCEEDED,
      orderIds: [hash(1, "c")],
      ref: { blockNumber: "30", txIndex: 3 },
    });
    expect(resolveMined({ chainId: 31337, receipt: receipt("0x0"), block: header(30), settler, now })).toMatchObject({
      outcome: TxOutcome.TX_OUTCOME_REVERTED,
      orderIds: [],
    });
    const dropped = resolveDropped({ chainId: 31337, txHash: hash(78), now });
    expect(dropped.ref).toBeUndefined();
    const record = resolutionRecord(dropped);
    expect(record).toMatchObject({
      topic: "intents.notifications.v1",
      key: `31337:${hash(78)}`,
      eventType: "NotifiedTxResolved",
    });
    expect(IntentNotificationEvent.decode(record.value).event?.value).toMatchObject({
      outcome: TxOutcome.TX_OUTCOME_DROPPED,
    });
  });
});
