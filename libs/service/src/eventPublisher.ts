import { createLazyPublisher, type Kafka } from "@platform/bus";
import { unavailable } from "@platform/errors";
import type { Logger } from "@platform/log";
import { type EventPayload, encodePayload, eventTypeOf, type TopicContract } from "@platform/proto/topics";

/** Where a published event landed. */
export interface PublishedEvent {
  partition: number;
  offset: string;
}

export interface KeyedEventPublisher<E extends EventPayload> {
  /**
   * Publishes one event under `key` (one key's events stay in order on one partition) on the topic
   * `topicOf` names. Rejects with UNAVAILABLE (`unconfirmed` as its detail) when Kafka has not
   * confirmed it by `deadline` (epoch ms): a caller never waits longer than its own deadline.
   */
  publish(event: E, key: string, deadline: number): Promise<PublishedEvent>;
  /** True once the producer is connected. */
  connected(): boolean;
  close(): Promise<void>;
}

/**
 * A service's own facts onto Kafka through libs/bus's lazy publisher: it connects in the background
 * and keeps trying while Kafka is away, so the service starts, and reports not-ready, without a
 * broker. A publish that missed its deadline goes on in the background and may still land.
 */
export function lazyEventPublisher<E extends EventPayload>(
  kafka: Kafka,
  log: Logger,
  options: { topicOf: (event: E) => TopicContract<E>; unconfirmed: string },
): KeyedEventPublisher<E> {
  const publisher = createLazyPublisher(kafka, {
    onConnectError: (error, failures) =>
      log.warn({ err: error, failures }, "kafka publisher could not connect; retrying"),
  });
  const notConfirmed = (cause?: unknown) => unavailable("UNAVAILABLE", options.unconfirmed, undefined, cause);
  return {
    async publish(event, key, deadline) {
      const topic = options.topicOf(event);
      const record = {
        topic: topic.name,
        key,
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
