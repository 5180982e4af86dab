import { createPublisher, type Kafka, type Publisher } from "@platform/bus";
import type { Logger } from "@platform/log";
import type { TcAcceptanceEvent } from "@platform/proto/events/v1/tc_acceptances";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import { dependencyUnavailable } from "./acceptErrors.js";

/** Where a published event landed. */
export interface PublishedEvent {
  partition: number;
  offset: string;
}

export interface EventPublisher {
  /**
   * Publishes one event on `tc.acceptances.v1` keyed by the wallet (one wallet's acceptances stay
   * in order on one partition). Rejects with UNAVAILABLE when Kafka has not confirmed it by
   * `deadline` (epoch ms), so a caller never waits beyond its own deadline.
   */
  publish(event: TcAcceptanceEvent, wallet: string, deadline: number): Promise<PublishedEvent>;
  close(): Promise<void>;
}

/**
 * A publisher that connects in the background and keeps trying (1 s doubling to 30 s) while Kafka
 * is away, so tc starts, and reports not-ready, without a broker. Publishing before it connected
 * waits for the connection within the caller's deadline.
 *
 * A publish that missed its deadline goes on in the background and may still land: the caller got
 * UNAVAILABLE and will sign again with a new nonce, and a second acceptance of the same version is
 * harmless (the projection keeps the latest).
 */
export function lazyEventPublisher(kafka: Kafka, log: Logger): EventPublisher {
  let publisher: Publisher | undefined;
  let connecting: Promise<Publisher> | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let failures = 0;
  let closed = false;

  const connect = (): Promise<Publisher> => {
    connecting ??= createPublisher(kafka).then(
      async (connected) => {
        if (closed) {
          await connected.disconnect().catch(() => undefined);
          throw new Error("publisher closed");
        }
        publisher = connected;
        failures = 0;
        log.info("kafka publisher connected");
        return connected;
      },
      (error: unknown) => {
        connecting = undefined;
        failures += 1;
        if (!closed) {
          log.warn({ err: error, failures }, "kafka publisher could not connect; retrying");
          scheduleRetry();
        }
        throw error;
      },
    );
    return connecting;
  };

  const scheduleRetry = (): void => {
    if (closed || retryTimer !== undefined) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      connect().catch(() => undefined);
    }, Math.min(30_000, 1_000 * 2 ** (failures - 1)));
    retryTimer.unref();
  };

  connect().catch(() => undefined);

  return {
    async publish(event, wallet, deadline) {
      if (closed) throw notConfirmed();
      const ready = publisher ?? (await beforeDeadline(connect(), deadline));
      const [landed] = await beforeDeadline(
        ready.publish([
          {
            topic: TOPICS.tcAcceptances.name,
            key: wallet,
            value: encodePayload(TOPICS.tcAcceptances, event),
            eventType: eventTypeOf(event),
            schema: TOPICS.tcAcceptances.schema,
          },
        ]),
        deadline,
      );
      if (landed === undefined) throw notConfirmed();
      return { partition: landed.partition, offset: landed.baseOffset };
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      await publisher?.disconnect().catch(() => undefined);
      publisher = undefined;
    },
  };
}

/** Settles like `work`, or rejects with UNAVAILABLE at the deadline (the work itself goes on). */
async function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(notConfirmed()), Math.max(0, deadline - Date.now()));
    timer.unref();
  });
  try {
    return await Promise.race([work.catch((error: unknown) => Promise.reject(notConfirmed(error))), late]);
  } finally {
    clearTimeout(timer);
  }
}

function notConfirmed(cause?: unknown) {
  return dependencyUnavailable("the event log (Kafka) did not confirm the acceptance in time; try again with a new nonce", cause);
}
