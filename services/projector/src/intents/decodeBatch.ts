import type { ConsumedRecord } from "@platform/bus";
import { DecodeError } from "@platform/errors/base";
import type { Logger } from "@platform/log";
import { IntentsChainEvent } from "@platform/proto/events/v1/chain_intents";
import { IntentNotificationEvent } from "@platform/proto/events/v1/intents_notifications";
import { TOPICS } from "@platform/proto/topics";
import { txId } from "@platform/read-models";
import { type HeadState, headFromEvent } from "./heads.js";

/** One thing a record tells the projection, in offset order. */
export type BatchChange =
  /** `stored`: the record's bytes, kept as the event's stored form (no re-encoding). */
  | { kind: "order"; orderId: string; payload: IntentsChainEvent; stored: Uint8Array }
  | { kind: "head"; head: HeadState }
  | { kind: "tx"; tx: string; chainId: string; txHash: string; payload: IntentNotificationEvent };

/**
 * Decodes a batch of either topic. A record that can never be decoded is logged and skipped: retried,
 * it would stop the projection for good.
 */
export function decodeBatch(messages: readonly ConsumedRecord[], log: Logger): BatchChange[] {
  const changes: BatchChange[] = [];
  for (const message of messages) {
    if (message.value === null) continue;
    const where = { topic: message.topic, partition: message.partition, offset: message.offset };
    try {
      if (message.topic === TOPICS.chainIntents.name) {
        const payload = IntentsChainEvent.decode(message.value);
        const event = payload.event;
        if (event === undefined) throw new DecodeError("no event in the record");
        if (event.$case === "chainHeadAdvanced") {
          const head = headFromEvent(event.value);
          if (head !== undefined) changes.push({ kind: "head", head });
          continue;
        }
        const orderId = (event.$case === "chainEventRemoved" ? event.value.key : event.value.orderId).toLowerCase();
        if (!/^0x[0-9a-f]{64}$/.test(orderId)) throw new DecodeError(`not an order id: ${orderId}`);
        changes.push({ kind: "order", orderId, payload, stored: message.value });
      } else if (message.topic === TOPICS.intentsNotifications.name) {
        const payload = IntentNotificationEvent.decode(message.value);
        const event = payload.event;
        if (event === undefined) throw new DecodeError("no event in the record");
        const chainId = event.value.originChainId;
        const txHash = event.value.txHash.toLowerCase();
        changes.push({ kind: "tx", tx: txId(chainId, txHash), chainId, txHash, payload });
      } else {
        log.warn(where, "record of a topic the intents projection does not read; skipped");
      }
    } catch (error) {
      log.error({ ...where, err: error }, "undecodable intents record; skipped");
    }
  }
  return changes;
}
