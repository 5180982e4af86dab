import { join } from "node:path";
import { createLogger } from "@platform/log";
import { type RunningKafka, startKafka, tempDir, waitFor } from "@platform/testing";
import type { Kafka } from "kafkajs";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafkaClient } from "./client.js";
import type { OutgoingRecord } from "./envelope.js";
import { migrateTopics } from "./migrateTopics.js";
import type { ProjectionBatch } from "./projectionConsumer.js";
import { PROJECTION_COMPLETE, type ProjectionMarker, superviseProjection } from "./projectionSupervisor.js";
import { createTransactionalPublisher, type TransactionalPublisher } from "./transactionalPublisher.js";

// The lag metrics of a supervised projection against one real broker, read as a scraper reads them.
const dir = tempDir("projection-metrics");
const logger = createLogger({ service: "projection-metrics-test", level: "warn" });
let broker: RunningKafka;
let kafka: Kafka;
let producer: TransactionalPublisher;
const topic = "test.lagged.v1";

beforeAll(async () => {
  broker = await startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") });
  kafka = createKafkaClient({ brokers: broker.brokers, clientId: "projection-metrics-test", logger });
  const admin = kafka.admin();
  await admin.connect();
  await migrateTopics(admin, [
    { name: topic, partitions: 2, replicationFactor: 1, configs: { "retention.ms": "-1", "min.insync.replicas": "1" } },
  ]);
  await admin.disconnect();
  producer = await createTransactionalPublisher(kafka, { transactionalId: "test-lagged", logger });
}, 120_000);

afterAll(async () => {
  await producer?.disconnect().catch(() => undefined);
  await broker?.stop();
  dir.remove();
});

const record = (key: string): OutgoingRecord => ({
  topic,
  key,
  value: Buffer.from(key),
  eventType: "Counted",
  schema: "platform.test.v1.Counted",
});

/** Every record in a transaction of its own: each partition then ends with a commit marker. */
async function produce(keys: string[]): Promise<void> {
  for (const key of keys) await producer.runInTransaction((tx) => tx.send([record(key)]));
}

function memoryMarker(): ProjectionMarker {
  let value: string | null = null;
  return {
    read: async () => value,
    setIfAbsent: async (next) => {
      value ??= next;
    },
    replace: async (expected, next) => {
      if (value !== expected) return false;
      value = next;
      return true;
    },
  };
}

/** A sample of the text exposition, as a scraper reads it; undefined when the series is absent. */
async function scrape(registry: Registry, line: string): Promise<number | undefined> {
  const found = (await registry.metrics()).split("\n").find((entry) => entry.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe("projection lag metrics", () => {
  it("rise while the projection is held back from records being produced, and return to 0 once it caught up", async () => {
    await produce(["a", "b", "c", "d"]);
    const offsets = new Map<string, string>();
    let applied = 0;
    // While `held` is set every batch waits: the consumer has fetched, but nothing is applied.
    let held: Promise<void> | undefined;
    let release = () => {};
    const registry = new Registry();
    const supervisor = superviseProjection({
      name: "lagged",
      kafka,
      log: logger,
      groupId: "test-lagged",
      topics: [topic],
      marker: memoryMarker(),
      projection: {
        loadOffsets: async (name, partition) => offsets.get(`${name}/${partition}`),
        handleBatch: async (batch: ProjectionBatch) => {
          await held;
          applied += batch.messages.length;
          offsets.set(`${batch.topic}/${batch.partition}`, batch.lastOffset);
        },
      },
      replicationFactor: 1,
      intervalMs: 100,
      maxWaitTimeMs: 100,
      metrics: { registry, lagIntervalMs: 200 },
    });
    const lagRecords = () => scrape(registry, `projection_consumer_lag_records{projection="lagged",topic="${topic}"}`);
    const lagSeconds = () => scrape(registry, 'projection_consumer_lag_seconds{projection="lagged"}');
    const rebuilding = () => scrape(registry, 'projection_rebuilding{projection="lagged"}');
    try {
      // A fresh read model is a replay from offset 0: rebuilding until it caught up, then 0 behind
      // although each partition ends with a commit marker the projection never sees as a record.
      await waitFor(async () => (await rebuilding()) === 1, { what: "rebuilding reported", timeoutMs: 30_000 });
      await waitFor(async () => supervisor.complete() && applied === 4 && (await lagRecords()) === 0, {
        what: "caught up",
        timeoutMs: 30_000,
      });
      expect(await rebuilding()).toBe(0);
      expect(await scrape(registry, 'projection_records_applied_total{projection="lagged"}')).toBe(4);
      expect(await scrape(registry, 'projection_last_commit_timestamp_seconds{projection="lagged"}')).toBeGreaterThan(
        Date.now() / 1_000 - 60,
      );
      await waitFor(async () => (await lagSeconds()) === 0, { what: "0 s behind", timeoutMs: 10_000 });

      // Held back: ten records produced, none applied.
      held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const producedAt = Date.now();
      await produce(["e", "f", "g", "h", "i", "j", "k", "l", "m", "n"]);
      // Each transaction's commit marker takes an offset too: 10 records in 10 transactions are 20 offsets behind.
      await waitFor(async () => (await lagRecords()) === 20, { what: "20 offsets behind", timeoutMs: 15_000 });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const behind = (await lagSeconds())!;
      expect(behind).toBeGreaterThanOrEqual(1);
      expect(behind).toBeLessThanOrEqual((Date.now() - producedAt) / 1_000 + 1);
      expect(applied).toBe(4);

      // Let go: it catches up, and both lags return to 0.
      held = undefined;
      release();
      await waitFor(async () => applied === 14 && (await lagRecords()) === 0 && (await lagSeconds()) === 0, {
        what: "caught up again",
        timeoutMs: 15_000,
      });
      expect(await scrape(registry, 'projection_records_applied_total{projection="lagged"}')).toBe(14);
      expect(supervisor.complete()).toBe(true);
      expect(PROJECTION_COMPLETE).toBe("complete");
    } finally {
      release();
      await supervisor.stop();
    }
    // A stopped projection reports no lag: absence is what the alert rules watch for.
    expect(await lagRecords()).toBeUndefined();
  }, 90_000);
});
