import type { Kafka } from "kafkajs";
import { describe, expect, it } from "vitest";
import type { OutgoingRecord } from "./envelope.js";
import { createTransactionalPublisher } from "./transactionalPublisher.js";

/** What one producer of the fake did: its transactions' outcomes (the first is its registration's empty abort). */
interface FakeProducer {
  outcomes: string[];
  disconnected: boolean;
}

/** A Kafka whose producers note each transaction's outcome; `failSend(n)` fails the n-th send of the whole run. */
function fakeKafka(failSend: (n: number) => boolean = () => false) {
  const producers: FakeProducer[] = [];
  let sends = 0;
  const kafka = {
    producer: () => {
      const producer: FakeProducer = { outcomes: [], disconnected: false };
      producers.push(producer);
      return {
        connect: async () => undefined,
        disconnect: async () => {
          producer.disconnected = true;
        },
        transaction: async () => ({
          sendBatch: async () => {
            sends += 1;
            if (failSend(sends)) throw new Error("the partition's leader went away");
          },
          sendOffsets: async () => undefined,
          abort: async () => void producer.outcomes.push("abort"),
          commit: async () => void producer.outcomes.push("commit"),
        }),
      };
    },
    admin: () => ({
      connect: async () => undefined,
      disconnect: async () => undefined,
      fetchTopicMetadata: async () => ({ topics: [{ partitions: [{ partitionId: 0, leader: 0 }] }] }),
    }),
  } as unknown as Kafka;
  return { kafka, producers };
}

const record: OutgoingRecord = {
  topic: "numbers",
  key: "one",
  value: Buffer.from("1"),
  eventType: "Numbered",
  schema: "test.Numbered",
};

describe("createTransactionalPublisher", () => {
  it("keeps its producer across committed transactions", async () => {
    const { kafka, producers } = fakeKafka();
    const publisher = await createTransactionalPublisher(kafka, { transactionalId: "kept" });
    for (let run = 0; run < 3; run++) await publisher.runInTransaction((tx) => tx.send([record]));
    expect(producers).toEqual([{ outcomes: ["abort", "commit", "commit", "commit"], disconnected: false }]);
    await publisher.disconnect();
  });

  it("aborts a transaction whose send failed, and runs the next on a fresh producer (a new epoch)", async () => {
    const { kafka, producers } = fakeKafka((n) => n === 1);
    const publisher = await createTransactionalPublisher(kafka, { transactionalId: "failed-send" });
    await expect(publisher.runInTransaction((tx) => tx.send([record]))).rejects.toThrow("leader went away");
    await publisher.runInTransaction((tx) => tx.send([record]));
    // The aborted transaction's producer is gone: a late write of its epoch is fenced by the new registration.
    expect(producers).toEqual([
      { outcomes: ["abort", "abort"], disconnected: true },
      { outcomes: ["abort", "commit"], disconnected: false },
    ]);
    await publisher.disconnect();
  });

  it("runs the transaction after a body that threw on a fresh producer too", async () => {
    const { kafka, producers } = fakeKafka();
    const publisher = await createTransactionalPublisher(kafka, { transactionalId: "thrown" });
    await expect(
      publisher.runInTransaction(async (tx) => {
        await tx.send([record]);
        throw new Error("the block could not be read");
      }),
    ).rejects.toThrow("could not be read");
    await publisher.runInTransaction((tx) => tx.send([record]));
    expect(producers.map((producer) => producer.outcomes)).toEqual([
      ["abort", "abort"],
      ["abort", "commit"],
    ]);
    expect(producers[0]!.disconnected).toBe(true);
    await publisher.disconnect();
  });
});
