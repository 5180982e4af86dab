import kafkajs from "kafkajs";
import { describe, expect, it } from "vitest";
import type { OutgoingRecord } from "./envelope.js";
import { groupByPartition, sendByPartition } from "./partitionSends.js";

const record = (topic: string, key: string, value: string): OutgoingRecord => ({
  topic,
  key,
  value: Buffer.from(value),
  eventType: "Numbered",
  schema: "test.Numbered",
});
const counts = { partitionsOf: async (topic: string) => (topic === "six" ? 6 : 3) };

/** The partition kafkajs' own default partitioner gives a key, for a topic of `partitions`. */
function kafkajsPartition(key: string, partitions: number): number {
  const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    leader: 1,
    replicas: [1],
    isr: [1],
    offlineReplicas: [],
    partitionErrorCode: 0,
  }));
  return kafkajs.Partitioners.DefaultPartitioner()({ topic: "t", partitionMetadata, message: { key, value: "" } });
}

describe("partitionSends", () => {
  it("puts each record in the partition kafkajs would give its key, keeping the caller's order within each", async () => {
    const records = Array.from({ length: 40 }, (_, index) =>
      record(index % 2 === 0 ? "six" : "three", `key-${index % 7}`, String(index)),
    );
    const groups = await groupByPartition(records, counts);
    for (const group of groups) {
      for (const entry of group.records)
        expect(group.partition).toBe(kafkajsPartition(entry.key, entry.topic === "six" ? 6 : 3));
      expect(group.records.every((entry) => entry.topic === group.topic)).toBe(true);
      const values = group.records.map((entry) => Number(Buffer.from(entry.value).toString()));
      expect(values).toEqual([...values].sort((left, right) => left - right));
    }
    expect(groups.flatMap((group) => group.records)).toHaveLength(40);
  });

  it("sends one partition per produce call, each record with its partition set, every record once", async () => {
    const records = Array.from({ length: 60 }, (_, index) => record("six", `key-${index}`, String(index)));
    const calls: { topic: string; partitions: Set<number | undefined>; values: string[] }[] = [];
    await sendByPartition(await groupByPartition(records, counts), async (topicMessages) => {
      expect(topicMessages).toHaveLength(1);
      const [{ topic, messages }] = topicMessages as [{ topic: string; messages: kafkajs.Message[] }];
      calls.push({
        topic,
        partitions: new Set(messages.map((message) => message.partition)),
        values: messages.map((message) => String(message.value)),
      });
    });
    expect(calls.every((call) => call.partitions.size === 1 && !call.partitions.has(undefined))).toBe(true);
    expect(calls.flatMap((call) => call.values).sort()).toEqual(
      records.map((entry) => Buffer.from(entry.value).toString()).sort(),
    );
  });
});
