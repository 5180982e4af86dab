import { DecodeError, TransientError } from "@platform/errors/base";
import type { Kafka } from "kafkajs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runProjectionConsumer } from "./projectionConsumer.js";

/*
 * The projection consumer's own restart loop (issue 33: errors drive retries), on a fake kafkajs
 * client: the loop runs only when kafkajs gives a consumer up (CRASH with restart false), which a
 * real broker does for a few outage errors only; projectionConsumer.int.test.ts covers the rest
 * against a real one.
 */

interface FakeConsumer {
  /** Emits kafkajs' CRASH event as the runner does when it gives up. */
  crash(error: Error, restart: boolean): void;
}

function fakeKafka(): { kafka: Kafka; consumers: FakeConsumer[] } {
  const consumers: FakeConsumer[] = [];
  const kafka = {
    // The stored offsets are best effort: an admin that cannot connect leaves them to the first batches.
    admin: () => ({
      connect: async () => {
        throw new Error("no admin in this test");
      },
      disconnect: async () => undefined,
    }),
    consumer: () => {
      const handlers = new Map<string, (event: unknown) => void>();
      consumers.push({ crash: (error, restart) => handlers.get("crash")?.({ payload: { error, restart } }) });
      return {
        events: { GROUP_JOIN: "group_join", END_BATCH_PROCESS: "end_batch_process", CRASH: "crash" },
        on: (name: string, handler: (event: unknown) => void) => {
          handlers.set(name, handler);
          return () => handlers.delete(name);
        },
        connect: async () => undefined,
        subscribe: async () => undefined,
        run: async () => undefined,
        seek: () => undefined,
        disconnect: async () => undefined,
      };
    },
  };
  return { kafka: kafka as unknown as Kafka, consumers };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("runProjectionConsumer's restarts", () => {
  it("replaces a consumer kafkajs gave up on after a transient error, and stops at once on one that says trying again cannot succeed", async () => {
    vi.useFakeTimers();
    const { kafka, consumers } = fakeKafka();
    const consumer = await runProjectionConsumer(kafka, {
      groupId: "restarts-test",
      topics: ["restarts.v1"],
      loadOffsets: async () => undefined,
      handleBatch: async () => undefined,
    });
    expect(consumers).toHaveLength(1);

    consumers[0]!.crash(new TransientError("the group coordinator is away"), false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(consumers).toHaveLength(2);

    consumers[1]!.crash(new DecodeError("a record no build of this projection can read"), false);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(consumers).toHaveLength(2);
    await consumer.stop();
  });
});
