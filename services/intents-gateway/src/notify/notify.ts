import { Metadata } from "@grpc/grpc-js";
import type { LazyPublisher } from "@platform/bus";
import { notFound, permissionDenied, unavailable } from "@platform/errors";
import { callUnary, type KeyConcurrency } from "@platform/grpc";
import { IntentStatus, type NotifyRequest, type NotifyResponse } from "@platform/proto/intents/v1/intents";
import type { TcServiceClient } from "@platform/proto/tc/v1/tc";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import { type Signals, subjects } from "@platform/signals";
import type { Redis } from "@platform/store";
import type { IntentChains } from "../chains/intentChains.js";
import { lookupTransaction } from "./lookupTransaction.js";
import { claimKey, NOTIFIED_TTL_SECONDS, notifiedKey } from "./notifiedKeys.js";
import { type ValidNotification, validateNotify } from "./validateNotify.js";

export interface NotifyDependencies {
  tc: TcServiceClient;
  redis: Redis;
  publisher: LazyPublisher;
  signals: Signals;
  originChainIds: ReadonlySet<string>;
  /** The user-triggered read clients: the notified transaction is looked up once, on its origin chain. */
  chains: IntentChains;
  now?: () => Date;
  /** How many of these calls one API key may have in progress at once (429 RATE_LIMITED beyond). */
  perKey: KeyConcurrency;
}

/**
 * The post-broadcast notification: validate, pass the T&C gate, look the transaction up once, then
 * record the notification once per (chain, tx, wallet). A transaction the origin chain does not
 * know (neither pending nor mined) is refused: the ingestor would otherwise wait for it for its
 * whole window. A wallet that did not send the transaction cannot claim it. Kafka is written before
 * the de-duplication key is made final, so a notification the client was told about is never lost;
 * the NATS hint only makes the mirror update sooner.
 */
export async function notify(
  dependencies: NotifyDependencies,
  request: NotifyRequest,
  apiKeyId: string,
  deadline: number,
): Promise<NotifyResponse> {
  return dependencies.perKey.run(apiKeyId, () => recordNotification(dependencies, request, apiKeyId, deadline));
}

async function recordNotification(
  dependencies: NotifyDependencies,
  request: NotifyRequest,
  apiKeyId: string,
  deadline: number,
): Promise<NotifyResponse> {
  const valid = validateNotify(request, dependencies.originChainIds);
  const gate = await callUnary(
    dependencies.tc,
    dependencies.tc.checkGate,
    { walletAddress: valid.userAddress },
    new Metadata(),
    { deadline },
  );
  if (!gate.allowed) {
    throw permissionDenied(
      "TC_NOT_ACCEPTED",
      `wallet ${valid.userAddress} has not accepted Terms & Conditions version ${gate.currentTcVersion}`,
      {
        acceptedVersion: gate.acceptedVersion ?? null,
        currentTcVersion: gate.currentTcVersion,
      },
    );
  }

  const key = claimKey(valid.originChainId, valid.txHash, valid.userAddress);
  const storeDown = (error: unknown) => {
    throw unavailable("UNAVAILABLE", "the notification store is unavailable; retry shortly", {}, error);
  };
  // A repeat is answered from the store: it costs the chain nothing.
  if ((await dependencies.redis.get(key).catch(storeDown)) !== null) return answer(valid, false);
  await checkTransaction(dependencies.chains, valid);

  const notifiedAt = (dependencies.now?.() ?? new Date()).toISOString();
  const record = JSON.stringify({ userAddress: valid.userAddress, orderId: valid.orderId ?? null, notifiedAt });
  const claimed = await dependencies.redis.set(key, `pending:${record}`, "EX", 60, "NX").catch(storeDown);
  if (claimed === null) return answer(valid, false);

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
  await dependencies.redis
    .multi()
    .set(key, record, "EX", NOTIFIED_TTL_SECONDS)
    .set(notifiedKey(valid.originChainId, valid.txHash), record, "EX", NOTIFIED_TTL_SECONDS)
    .exec()
    .catch(() => undefined);
  // The key id lets the ingestor bound how many transactions one key has it follow.
  dependencies.signals.publish(subjects.intentsNotified, {
    chainId: valid.originChainId,
    txHash: valid.txHash,
    apiKeyId,
  });
  return answer(valid, true);
}

/** 404 for a transaction the origin chain does not know, 403 for a wallet that did not send it. */
async function checkTransaction(chains: IntentChains, valid: ValidNotification): Promise<void> {
  const chain = chains.get(Number(valid.originChainId));
  // validateNotify admitted the chain: every intents chain has a client.
  if (chain === undefined)
    throw unavailable("UNAVAILABLE", `chain ${valid.originChainId} has no read client`, {
      chainId: Number(valid.originChainId),
    });
  const known = await lookupTransaction(chain, valid.txHash);
  if (known === undefined) {
    throw notFound(
      "TRANSACTION_NOT_FOUND",
      `chain ${valid.originChainId} knows no transaction ${valid.txHash} (neither pending nor mined); notify after broadcasting it, and retry in a few seconds if it was just sent elsewhere`,
      { parameter: "txHash" },
    );
  }
  if (known.from !== valid.userAddress) {
    throw permissionDenied(
      "TX_SENDER_MISMATCH",
      `transaction ${valid.txHash} was not sent by ${valid.userAddress}; only its sender may notify it`,
      {
        parameter: "userAddress",
      },
    );
  }
}

function answer(valid: ValidNotification, created: boolean): NotifyResponse {
  return {
    originChainId: valid.originChainId,
    txHash: valid.txHash,
    orderIds: valid.orderId ? [valid.orderId] : [],
    status: IntentStatus.INTENT_STATUS_SUBMITTED,
    created,
  };
}
