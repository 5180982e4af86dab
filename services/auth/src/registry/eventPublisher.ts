import type { Kafka } from "@platform/bus";
import type { Logger } from "@platform/log";
import type { ApiKeyEvent } from "@platform/proto/events/v1/auth_api_keys";
import { TOPICS } from "@platform/proto/topics";
import { lazyEventPublisher as keyedEventPublisher, type PublishedEvent } from "@platform/service";
import { keyIdOf } from "./evolve.js";

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

/** libs/service's lazy event publisher for auth's events. */
export function lazyEventPublisher(kafka: Kafka, log: Logger): EventPublisher {
  const publisher = keyedEventPublisher<ApiKeyEvent>(kafka, log, {
    topicOf,
    unconfirmed: "the event log (Kafka) did not confirm the change in time; try again shortly",
  });
  return {
    publish: (event, deadline) => publisher.publish(event, keyIdOf(event) ?? "", deadline),
    connected: publisher.connected,
    close: publisher.close,
  };
}

/** Where an event goes: refresh tokens expire, so their events need not be kept forever. */
export function topicOf(event: ApiKeyEvent): typeof TOPICS.authApiKeys | typeof TOPICS.authRefreshTokens {
  const $case = event.event?.$case;
  return $case === "refreshTokenIssued" || $case === "refreshTokenRevoked"
    ? TOPICS.authRefreshTokens
    : TOPICS.authApiKeys;
}
