import { createLazyPublisher, type Kafka } from "@platform/bus";
import type { Logger } from "@platform/log";
import type { TcAcceptanceEvent } from "@platform/proto/events/v1/tc_acceptances";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import { dependencyUnavailable } from "../acceptErrors.js";

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
 * libs/bus's lazy publisher for tc's events: it connects in the background and keeps trying while
 * Kafka is away, so tc starts, and reports not-ready, without a broker.
 *
 * A publish that missed its deadline goes on in the background and may still land: the caller got
 * UNAVAILABLE and will sign again with a new nonce, and a second acceptance of the same version is
 * harmless (the projection keeps the latest).
 */
export function lazyEventPublisher(kafka: Kafka, log: Logger): EventPublisher {
  const publisher = createLazyPublisher(kafka, {
    onConnectError: (error, failures) =>
      log.warn({ err: error, failures }, "kafka publisher could not connect; retrying"),
  });
  return {
    async publish(event, wallet, deadline) {
      const record = {
        topic: TOPICS.tcAcceptances.name,
        key: wallet,
        value: encodePayload(TOPICS.tcAcceptances, event),
        eventType: eventTypeOf(event),
        schema: TOPICS.tcAcceptances.schema,
      };
      const [landed] = await publisher
        .publish([record], deadline)
        .catch((error: unknown) => Promise.reject(notConfirmed(error)));
      if (landed === undefined) throw notConfirmed();
      return { partition: landed.partition, offset: landed.baseOffset };
    },
    close: publisher.close,
  };
}

function notConfirmed(cause?: unknown) {
  return dependencyUnavailable(
    "the event log (Kafka) did not confirm the acceptance in time; try again with a new nonce",
    cause,
  );
}
