import { PlatformError, retryDelay } from "@platform/errors/base";
import type { Kafka } from "kafkajs";
import type { OutgoingRecord } from "./envelope.js";
import { createPublisher, type PublishedBatch, type Publisher } from "./publisher.js";

export interface LazyPublisher {
  /**
   * Publishes once connected; rejects when Kafka has not confirmed by `deadline` (epoch ms), so a
   * caller never waits past its own deadline. A rejection means "maybe not written": callers
   * answer 503 and the client retries (consumers are idempotent).
   */
  publish(records: readonly OutgoingRecord[], deadline: number): Promise<PublishedBatch[]>;
  connected(): boolean;
  close(): Promise<void>;
}

export interface LazyPublisherOptions {
  /** Told about each failed connection attempt (for a log line); never throws. */
  onConnectError?: (error: unknown, failures: number) => void;
}

/**
 * An idempotent publisher that connects in the background and keeps trying (1 s doubling to
 * 30 s) while Kafka is away, so a service starts, and reports not-ready, without a broker. An
 * error that says trying again cannot succeed (givesUp) ends the attempts; a publish then tries once more.
 */
export function createLazyPublisher(kafka: Kafka, options: LazyPublisherOptions = {}): LazyPublisher {
  let publisher: Publisher | undefined;
  let connecting: Promise<Publisher> | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let failures = 0;
  let closed = false;

  const connect = (): Promise<Publisher> => {
    connecting ??= createPublisher(kafka).then(
      async (connectedPublisher) => {
        if (closed) {
          await connectedPublisher.disconnect().catch(() => undefined);
          throw publisherClosed();
        }
        publisher = connectedPublisher;
        failures = 0;
        return connectedPublisher;
      },
      (error: unknown) => {
        connecting = undefined;
        failures += 1;
        options.onConnectError?.(error, failures);
        const delay = retryDelay(error, failures - 1, { firstMs: 1_000, maxMs: 30_000 });
        if (!closed && delay !== undefined) {
          retryTimer = setTimeout(() => void connect().catch(() => undefined), delay);
          retryTimer.unref();
        }
        throw error;
      },
    );
    return connecting;
  };
  void connect().catch(() => undefined);

  const withDeadline = <T>(promise: Promise<T>, deadline: number): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error("Kafka did not confirm the publish in time")),
        Math.max(0, deadline - Date.now()),
      );
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  };

  return {
    async publish(records, deadline) {
      if (closed) throw publisherClosed();
      const ready = publisher ?? (await withDeadline(connect(), deadline));
      return withDeadline(ready.publish(records), deadline);
    },
    connected: () => publisher !== undefined,
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      await publisher?.disconnect().catch(() => undefined);
    },
  };
}

/** A publish after close: nothing will send it, so retrying is pointless. */
const publisherClosed = () => new PlatformError("publisher closed", { code: "PUBLISHER_CLOSED", retryable: false });
