import { Metadata } from "@grpc/grpc-js";
import type { LazyPublisher } from "@platform/bus";
import { permissionDenied, unavailable } from "@platform/errors";
import { callUnary } from "@platform/grpc";
import { IntentStatus, type NotifyRequest, type NotifyResponse } from "@platform/proto/intents/v1/intents";
import type { TcServiceClient } from "@platform/proto/tc/v1/tc";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import { subjects, type Signals } from "@platform/signals";
import type { Redis } from "@platform/store";
import { NOTIFIED_TTL_SECONDS, notifiedKey } from "./notifiedKeys.js";
import { validateNotify } from "./validateNotify.js";

export interface NotifyDependencies {
  tc: TcServiceClient;
  redis: Redis;
  publisher: LazyPublisher;
  signals: Signals;
  originChainIds: ReadonlySet<string>;
  now?: () => Date;
}

/**
 * The post-broadcast notification: validate, pass the T&C gate, then record the notification once
 * per (chain, tx). Kafka is written before the de-duplication key is made final, so a notification
 * the client was told about is never lost; the NATS hint only makes the mirror update sooner.
 */
export async function notify(dependencies: NotifyDependencies, request: NotifyRequest, apiKeyId: string, deadline: number): Promise<NotifyResponse> {
  const valid = validateNotify(request, dependencies.originChainIds);
  const gate = await callUnary(dependencies.tc, dependencies.tc.checkGate, { walletAddress: valid.userAddress }, new Metadata(), { deadline });
  if (!gate.allowed) {
    throw permissionDenied("TC_NOT_ACCEPTED", `wallet ${valid.userAddress} has not accepted Terms & Conditions version ${gate.currentTcVersion}`, {
      acceptedVersion: gate.acceptedVersion ?? null,
      currentTcVersion: gate.currentTcVersion,
    });
  }

  const key = notifiedKey(valid.originChainId, valid.txHash);
  const notifiedAt = (dependencies.now?.() ?? new Date()).toISOString();
  const record = JSON.stringify({ userAddress: valid.userAddress, orderId: valid.orderId ?? null, notifiedAt });
  const claimed = await dependencies.redis.set(key, `pending:${record}`, "EX", 60, "NX").catch((error: unknown) => {
    throw unavailable("UNAVAILABLE", "the notification store is unavailable; retry shortly", {}, error);
  });
  if (claimed === null) {
    return { originChainId: valid.originChainId, txHash: valid.txHash, orderIds: valid.orderId ? [valid.orderId] : [], status: IntentStatus.INTENT_STATUS_SUBMITTED, created: false };
  }

  const payload = {
    event: {
      $case: "intentNotified" as const,
      value: {
        originChainId: valid.originChainId,
        txHash: valid.txHash,
        userAddress: valid.userAddress,
        orderId: valid.orderId,
        quoteId: valid.quoteId,
        notifiedAt,
        apiKeyId,
        tcVersion: gate.currentTcVersion,
      },
    },
  };
  try {
    await dependencies.publisher.publish(
      [
        {
          topic: TOPICS.intentsNotifications.name,
          key: `${valid.originChainId}:${valid.txHash}`,
          value: encodePayload(TOPICS.intentsNotifications, payload),
          eventType: eventTypeOf(payload),
          schema: TOPICS.intentsNotifications.schema,
        },
      ],
      deadline,
    );
  } catch (error) {
    // Not recorded: free the key so the client's retry can record it.
    await dependencies.redis.del(key).catch(() => undefined);
    throw unavailable("UNAVAILABLE", "the notification could not be recorded; retry shortly", {}, error);
  }
  await dependencies.redis.set(key, record, "EX", NOTIFIED_TTL_SECONDS).catch(() => undefined);
  dependencies.signals.publish(subjects.intentsNotified, { chainId: valid.originChainId, txHash: valid.txHash });
  return { originChainId: valid.originChainId, txHash: valid.txHash, orderIds: valid.orderId ? [valid.orderId] : [], status: IntentStatus.INTENT_STATUS_SUBMITTED, created: true };
}
