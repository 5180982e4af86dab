import { PlatformError, TransientError } from "@platform/errors/base";
import { createLogger } from "@platform/log";
import type { Kafka } from "kafkajs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ensureTopics } from "./ensureTopics.js";
import { createLazyPublisher } from "./lazyPublisher.js";

// The loops' decision alone: a client whose connect fails as told, counting the attempts. Talking
// to a real broker is bus.int.test.ts' job.
function failingKafka(error: () => Error) {
  const attempts = { producer: 0, admin: 0 };
  const connect = (kind: keyof typeof attempts) => async () => {
    attempts[kind] += 1;
    throw error();
  };
  const kafka = {
    producer: () => ({ connect: connect("producer"), disconnect: async () => undefined }),
    admin: () => ({ connect: connect("admin"), disconnect: async () => undefined }),
  } as unknown as Kafka;
  return { kafka, attempts };
}

const logger = createLogger({ service: "retry-loops-test", level: "silent" });
const fatalError = () =>
  new PlatformError("the broker refused these credentials", { code: "AUTH_REFUSED", retryable: false });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("retry loops stop on errors that say trying again cannot succeed", () => {
  it("the lazy publisher keeps connecting after a transient failure and stops after a fatal one", async () => {
    const transient = failingKafka(() => new TransientError("broker away"));
    const keeps = createLazyPublisher(transient.kafka);
    await vi.advanceTimersByTimeAsync(3_500);
    // At 0, 1 s and 3 s.
    expect(transient.attempts.producer).toBe(3);
    await keeps.close();

    const fatal = failingKafka(() => fatalError());
    const stops = createLazyPublisher(fatal.kafka);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fatal.attempts.producer).toBe(1);
    await stops.close();
  });

  it("ensureTopics keeps trying after a transient failure and stops after a fatal one", async () => {
    const transient = failingKafka(() => new TransientError("broker away"));
    const keeps = ensureTopics(transient.kafka, { topics: ["chain.network.v1"], replicationFactor: 1, logger });
    await vi.advanceTimersByTimeAsync(3_500);
    expect(transient.attempts.admin).toBe(3);
    keeps.stop();

    const fatal = failingKafka(() => fatalError());
    const stops = ensureTopics(fatal.kafka, { topics: ["chain.network.v1"], replicationFactor: 1, logger });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fatal.attempts.admin).toBe(1);
    expect(stops.ready()).toBe(false);
    stops.stop();
  });
});
