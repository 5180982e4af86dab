import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createLogger } from "@platform/log";
import { TOPICS } from "@platform/proto/topics";
import { type RunningKafka, startKafka, tempDir, waitFor } from "@platform/testing";
import type { Admin, Kafka } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafkaClient } from "./client.js";
import { ensureTopics } from "./ensureTopics.js";
import { superviseProjection } from "./projectionSupervisor.js";
import { MissingTopicsError, requireTopics } from "./requireTopics.js";

/*
 * A service whose topics are created by the platform's topics step (KAFKA_CREATE_TOPICS=false):
 * started before the step, it creates nothing, stays not ready, and becomes ready by itself once
 * the topics exist. Against one real broker.
 */
const dir = tempDir("await-topics");
const logger = createLogger({ service: "await-topics-test", level: "silent" });
let broker: RunningKafka;
let kafka: Kafka;
let admin: Admin;

beforeAll(async () => {
  broker = await startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") });
  kafka = createKafkaClient({ brokers: broker.brokers, clientId: "await-topics-test", logger });
  admin = kafka.admin();
  await admin.connect();
}, 120_000);

afterAll(async () => {
  await admin?.disconnect().catch(() => undefined);
  await broker?.stop();
  dir.remove();
});

const create = (topic: string) =>
  waitFor(() => admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] }).then(() => true), {
    what: `${topic} created`,
    timeoutMs: 20_000,
  });

describe("waiting for topics instead of creating them", () => {
  it("requireTopics names the missing topics, and passes once they exist", async () => {
    await expect(requireTopics(admin, ["test.required.v1"])).rejects.toThrow(MissingTopicsError);
    await create("test.required.v1");
    await waitFor(() => requireTopics(admin, ["test.required.v1"]).then(() => true), {
      what: "the topic listed",
      timeoutMs: 10_000,
    });
  });

  it("ensureTopics with create: false stays not ready, creates nothing, and is ready once the topic exists", async () => {
    const topic = TOPICS.tcAcceptances.name;
    const topics = ensureTopics(kafka, { topics: [topic], replicationFactor: 1, logger, create: false });
    try {
      await sleep(1_500);
      expect(topics.ready()).toBe(false);
      expect(await admin.listTopics()).not.toContain(topic);
      await create(topic);
      await waitFor(async () => topics.ready(), { what: "ready once the topic exists", timeoutMs: 20_000 });
    } finally {
      topics.stop();
    }
  });

  it("a projection supervisor with createTopics: false starts no consumer until its topic exists, then recovers", async () => {
    const topic = "test.awaited.v1";
    let value: string | null = null;
    const supervisor = superviseProjection({
      name: "awaited",
      kafka,
      log: logger,
      groupId: "test-awaited",
      topics: [topic],
      marker: {
        read: async () => value,
        setIfAbsent: async (next: string) => {
          value ??= next;
        },
        replace: async (expected: string, next: string) => {
          if (value !== expected) return false;
          value = next;
          return true;
        },
      },
      projection: { loadOffsets: async () => undefined, handleBatch: async () => undefined },
      replicationFactor: 1,
      createTopics: false,
      intervalMs: 100,
      maxWaitTimeMs: 100,
    });
    try {
      await sleep(1_500);
      expect(await supervisor.check.probe()).toBe(false);
      expect(await admin.listTopics()).not.toContain(topic);
      await create(topic);
      await waitFor(async () => supervisor.complete() && (await supervisor.check.probe()), {
        what: "the projection running once its topic exists",
        timeoutMs: 30_000,
      });
    } finally {
      await supervisor.stop();
    }
  });
});
