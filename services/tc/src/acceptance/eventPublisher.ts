import type { Kafka } from "@platform/bus";
import type { Logger } from "@platform/log";
import type { TcAcceptanceEvent } from "@platform/proto/events/v1/tc_acceptances";
import { TOPICS } from "@platform/proto/topics";
import { lazyEventPublisher as keyedEventPublisher, type PublishedEvent } from "@platform/service";

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
 * libs/service's lazy event publisher for tc's events. A publish that missed its deadline may still
 * land: the caller got UNAVAILABLE and will sign again with a new nonce, and a second acceptance of
 * the same version is harmless (the projection keeps the latest).
 */
export function lazyEventPublisher(kafka: Kafka, log: Logger): EventPublisher {
  const publisher = keyedEventPublisher<TcAcceptanceEvent>(kafka, log, {
    topicOf: () => TOPICS.tcAcceptances,
    unconfirmed: "the event log (Kafka) did not confirm the acceptance in time; try again with a new nonce",
  });
  return { publish: publisher.publish, close: publisher.close };
}
