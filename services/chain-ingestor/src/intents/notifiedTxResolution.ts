import type { OutgoingRecord } from "@platform/bus";
import { Finality } from "@platform/proto/common/v1/common";
import {
  type IntentNotificationEvent,
  type NotifiedTxResolved,
  TxOutcome,
} from "@platform/proto/events/v1/intents_notifications";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import { getAddress, type Hex } from "viem";
import type { BlockHeader } from "../follower/blocks.js";
import { isOpenLog } from "./settlerEvents.js";

/** A transaction receipt as `eth_getTransactionReceipt` returns it (unformatted). */
export interface RpcReceipt {
  transactionHash: Hex;
  transactionIndex: Hex;
  blockHash: Hex;
  blockNumber: Hex;
  from: Hex;
  /** 0x1 success, 0x0 failure. */
  status: Hex;
  logs: { address: Hex; topics: Hex[]; data: Hex; logIndex: Hex }[];
}

/** What a mined notified transaction did: SUCCEEDED with the orderIds of its Open logs, or REVERTED. */
export function resolveMined(input: {
  chainId: number;
  receipt: RpcReceipt;
  block: BlockHeader;
  settler: Hex;
  now: Date;
}): NotifiedTxResolved {
  const { receipt, block } = input;
  const succeeded = BigInt(receipt.status) === 1n;
  return {
    originChainId: String(input.chainId),
    txHash: receipt.transactionHash.toLowerCase(),
    outcome: succeeded ? TxOutcome.TX_OUTCOME_SUCCEEDED : TxOutcome.TX_OUTCOME_REVERTED,
    ref: {
      chainId: String(input.chainId),
      blockNumber: block.number.toString(),
      blockHash: block.hash,
      parentHash: block.parentHash,
      blockTimestamp: new Date(Number(block.timestamp) * 1_000).toISOString(),
      txHash: receipt.transactionHash.toLowerCase(),
      txIndex: Number(receipt.transactionIndex),
      // The receipt is read at the head; the block follower publishes the settled view of its logs.
      finality: Finality.FINALITY_LATEST,
    },
    txFrom: getAddress(receipt.from),
    orderIds: succeeded
      ? receipt.logs.filter((log) => isOpenLog(log, input.settler)).map((log) => log.topics[1]!.toLowerCase())
      : [],
    resolvedAt: input.now.toISOString(),
  };
}

/** A notified transaction not mined within its window. */
export function resolveDropped(input: { chainId: number; txHash: string; now: Date }): NotifiedTxResolved {
  return {
    originChainId: String(input.chainId),
    txHash: input.txHash.toLowerCase(),
    outcome: TxOutcome.TX_OUTCOME_DROPPED,
    orderIds: [],
    resolvedAt: input.now.toISOString(),
  };
}

/** The `intents.notifications.v1` record of a resolution, keyed `<chainId>:<txHash>` like its notification. */
export function resolutionRecord(resolution: NotifiedTxResolved): OutgoingRecord {
  const payload: IntentNotificationEvent = { event: { $case: "notifiedTxResolved", value: resolution } };
  return {
    topic: TOPICS.intentsNotifications.name,
    key: `${resolution.originChainId}:${resolution.txHash}`,
    value: encodePayload(TOPICS.intentsNotifications, payload),
    eventType: eventTypeOf(payload),
    schema: TOPICS.intentsNotifications.schema,
  };
}
