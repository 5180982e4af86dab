import { createLazyPublisher, type Kafka } from "@platform/bus";
import { unavailable } from "@platform/errors";
import type { Logger } from "@platform/log";
import type { ApiKeyEvent } from "@platform/proto/events/v1/auth_api_keys";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import { keyIdOf } from "./evolve.js";

/** Where a published event landed. */
export interface PublishedEvent {
  partition: number;
  offset: string;
}

export interface EventPublisher {
  /**
   * Publishes one event, keyed by its key id (one key's events stay in order on one partition):
   * an issued refresh token on `auth.refresh-tokens.v1` (kept while a token can be live), every
   * other event on `auth.api-keys.v1` (kept forever). Rejects with UNAVAILABLE when Kafka has not confirmed it by
   * `deadline` (epoch ms): a caller never waits longer than its own deadline.
   */
  publish(event: ApiKeyEvent, deadline: number): Promise<PublishedEvent>;
  /** True once the producer is connected. */
  connected(): boolean;
  close(): Promise<void>;
}

/**
 * libs/bus's lazy publisher for auth's events: it connects in the background and keeps trying
 * while Kafka is away, so auth starts, and reports not-ready, without a broker.
 */
export function lazyEventPublisher(kafka: Kafka, log: Logger): EventPublisher {
  const publisher = createLazyPublisher(kafka, {
    onConnectError: (error, failures) =>
      log.warn({ err: error, failures }, "kafka publisher could not connect; retrying"),
  });
  return {
    async publish(event, deadline) {
      const topic = topicOf(event);
      const record = {
        topic: topic.name,
        key: keyIdOf(event) ?? "",
        value: encodePayload(topic, event),
        eventType: eventTypeOf(event),
        schema: topic.schema,
      };
      const [landed] = await publisher
        .publish([record], deadline)
        .catch((error: unknown) => Promise.reject(notConfirmed(error)));
      if (landed === undefined) throw notConfirmed();
      return { partition: landed.partition, offset: landed.baseOffset };
    },
    connected: publisher.connected,
    close: publisher.close,
  };
}

/** Where an event goes: refresh tokens expire, so their events need not be kept forever. */
export function topicOf(event: ApiKeyEvent): typeof TOPICS.authApiKeys | typeof TOPICS.authRefreshTokens {
  return event.event?.$case === "refreshTokenIssued" ? TOPICS.authRefreshTokens : TOPICS.authApiKeys;
}

function notConfirmed(cause?: unknown) {
  return unavailable(
    "UNAVAILABLE",
    "the event log (Kafka) did not confirm the change in time; try again shortly",
    undefined,
    cause,
  );
}
