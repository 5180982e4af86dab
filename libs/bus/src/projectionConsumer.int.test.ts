import { join } from "node:path";
import { Writable } from "node:stream";
import { createLogger, type Logger } from "@platform/log";
import { type RunningKafka, startKafka, tempDir, waitFor } from "@platform/testing";
import type { Admin, Kafka } from "kafkajs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createKafkaClient } from "./client.js";
import type { ConsumedRecord, OutgoingRecord } from "./envelope.js";
import { migrateTopics } from "./migrateTopics.js";
import { type ProjectionBatch, type ProjectionConsumer, runProjectionConsumer } from "./projectionConsumer.js";
import { PROJECTION_COMPLETE, superviseProjection } from "./projectionSupervisor.js";
import { createPublisher, type Publisher } from "./publisher.js";
import { createTransactionalPublisher } from "./transactionalPublisher.js";

// Where a projection consumer starts reading, against one real broker.
const dir = tempDir("projection-consumer");
const logLines: Record<string, unknown>[] = [];
const logger: Logger = createLogger({
  service: "projection-consumer-test",
  level: "debug",
  destination: new Writable({
    write(chunk, _encoding, callback) {
      logLines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      callback();
    },
  }),
});
let broker: RunningKafka;
let kafka: Kafka;
let admin: Admin;
let publisher: Publisher;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  broker = await startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") });
  kafka = createKafkaClient({ brokers: broker.brokers, clientId: "projection-consumer-test", logger });
  admin = kafka.admin();
  await admin.connect();
  publisher = await createPublisher(kafka);
}, 120_000);

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

afterAll(async () => {
  await publisher?.disconnect().catch(() => undefined);
  await admin?.disconnect().catch(() => undefined);
  await broker?.stop();
  dir.remove();
});

const record = (topic: string, key: string, text: string): OutgoingRecord => ({
  topic,
  key,
  value: Buffer.from(text),
  eventType: "Counted",
  schema: "platform.test.v1.Counted",
});

/** A projection whose "Redis" is a Map: applied records and offsets change together, per batch. */
function memoryProjection() {
  const offsets = new Map<string, string>();
  const applied: ConsumedRecord[] = [];
  return {
    offsets,
    applied,
    loadOffsets: async (topic: string, partition: number) => offsets.get(`${topic}/${partition}`),
    handleBatch: async (batch: ProjectionBatch) => {
      // The compare-and-set a real projection makes in its atomic commit.
      if (batch.previousOffset !== offsets.get(`${batch.topic}/${batch.partition}`))
        throw new Error("stored offset moved");
      applied.push(...batch.messages);
      offsets.set(`${batch.topic}/${batch.partition}`, batch.lastOffset);
    },
  };
}

async function consume(
  groupId: string,
  topic: string,
  projection: ReturnType<typeof memoryProjection>,
): Promise<ProjectionConsumer> {
  const consumer = await runProjectionConsumer(kafka, {
    groupId,
    topics: [topic],
    logger,
    maxWaitTimeMs: 100,
    ...projection,
  });
  cleanups.push(() => consumer.stop());
  return consumer;
}

const groupLines = (groupId: string, msg: string) =>
  logLines.filter((line) => line.groupId === groupId && line.msg === msg);

describe("runProjectionConsumer positions", () => {
  it("after a restart, seeks every partition to the stored offset before its first fetch: no duplicate, no loss, no wasted fetch", async () => {
    const topic = "test.resume.v1";
    const groupId = "test-resume";
    await migrateTopics(admin, [
      {
        name: topic,
        partitions: 3,
        replicationFactor: 1,
        configs: { "retention.ms": "-1", "min.insync.replicas": "1" },
      },
    ]);
    const keys = Array.from({ length: 30 }, (_, index) => `key-${index}`);
    await publisher.publish(keys.map((key) => record(topic, key, `${key}#1`)));

    const projection = memoryProjection();
    const first = await consume(groupId, topic, projection);
    await waitFor(async () => projection.applied.length >= 30, { what: "first pass", timeoutMs: 30_000 });
    await first.stop();
    expect(projection.offsets.size).toBe(3);

    // Facts published while the projection is down; a new consumer (a restarted process) resumes.
    await publisher.publish(keys.slice(0, 12).map((key) => record(topic, key, `${key}#2`)));
    logLines.splice(0);
    await consume(groupId, topic, projection);
    await waitFor(async () => projection.applied.length >= 42, { what: "second pass", timeoutMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));

    const applied = projection.applied.map((entry) => `${entry.partition}:${entry.offset}`);
    expect(new Set(applied).size).toBe(applied.length);
    expect(projection.applied).toHaveLength(42);
    expect(
      projection.applied
        .map((entry) => entry.value?.toString())
        .filter((text) => text?.endsWith("#2"))
        .sort(),
    ).toEqual(
      keys
        .slice(0, 12)
        .map((key) => `${key}#2`)
        .sort(),
    );
    // Every partition was positioned on joining, so no first fetch read from the log's start.
    expect(groupLines(groupId, "projection consumer joined its group").at(-1)?.seeks).toBe(3);
    expect(groupLines(groupId, "first batch fetched from elsewhere than the stored position; seeking")).toEqual([]);
  });

  it("realigns on the first batch when the stored offset moved after the consumer read it (another member advanced it)", async () => {
    const topic = "test.realign.v1";
    const groupId = "test-realign";
    await migrateTopics(admin, [
      {
        name: topic,
        partitions: 1,
        replicationFactor: 1,
        configs: { "retention.ms": "-1", "min.insync.replicas": "1" },
      },
    ]);
    await publisher.publish(["a", "b", "c", "d", "e"].map((key) => record(topic, key, key)));
    const projection = memoryProjection();
    projection.offsets.set(`${topic}/0`, "0");
    let loads = 0;
    // The first read (before joining) answers 0; by the first batch the store says 2.
    const moving = {
      ...projection,
      loadOffsets: async (name: string, partition: number) => {
        loads += 1;
        if (loads === 2) projection.offsets.set(`${topic}/0`, "2");
        return projection.loadOffsets(name, partition);
      },
    };
    logLines.splice(0);
    await consume(groupId, topic, moving);
    await waitFor(async () => projection.offsets.get(`${topic}/0`) === "4", { what: "caught up", timeoutMs: 30_000 });
    expect(projection.applied.map((entry) => entry.value?.toString())).toEqual(["d", "e"]);
    expect(groupLines(groupId, "first batch fetched from elsewhere than the stored position; seeking")).toHaveLength(1);
  });
});

/** A marker kept in memory, with the same compare-and-set contract as the Redis one. */
function memoryMarker() {
  let value: string | null = null;
  const seen: (string | null)[] = [];
  return {
    seen,
    clear: () => {
      value = null;
    },
    read: async () => {
      seen.push(value);
      return value;
    },
    setIfAbsent: async (next: string) => {
      value ??= next;
    },
    replace: async (expected: string, next: string) => {
      if (value !== expected) return false;
      value = next;
      return true;
    },
  };
}

describe("superviseProjection", () => {
  it("replays into an empty read model, marks it complete once caught up, and rebuilds it when the marker is lost", async () => {
    const topic = "test.supervised.v1";
    await migrateTopics(admin, [
      {
        name: topic,
        partitions: 2,
        replicationFactor: 1,
        configs: { "retention.ms": "-1", "min.insync.replicas": "1" },
      },
    ]);
    await publisher.publish(["a", "b", "c", "d"].map((key) => record(topic, key, key)));
    let projection = memoryProjection();
    const marker = memoryMarker();
    let rebuilds = 0;
    const supervisor = superviseProjection({
      name: "test",
      kafka,
      log: logger,
      groupId: "test-supervised",
      topics: [topic],
      marker,
      // Each rebuild gets an empty read model, as after a flush.
      projection: {
        loadOffsets: (name, partition) => projection.loadOffsets(name, partition),
        handleBatch: (batch) => projection.handleBatch(batch),
      },
      replicationFactor: 1,
      intervalMs: 100,
      maxWaitTimeMs: 100,
      onRebuild: () => {
        rebuilds += 1;
      },
    });
    cleanups.push(() => supervisor.stop());
    expect(await supervisor.check.probe()).toBe(false);

    await waitFor(async () => supervisor.complete() && (await supervisor.check.probe()), {
      what: "complete",
      timeoutMs: 30_000,
    });
    expect(projection.applied.map((entry) => entry.value?.toString()).sort()).toEqual(["a", "b", "c", "d"]);
    // It went through a named rebuild before it said complete.
    expect(marker.seen.some((value) => value?.startsWith("rebuilding:"))).toBe(true);
    expect(await marker.read()).toBe(PROJECTION_COMPLETE);

    // The store lost the read model and its marker: the replay starts over from offset 0.
    await publisher.publish([record(topic, "e", "e")]);
    projection = memoryProjection();
    marker.clear();
    supervisor.poke();
    await waitFor(async () => (await marker.read()) === PROJECTION_COMPLETE && projection.applied.length === 5, {
      what: "rebuilt",
      timeoutMs: 30_000,
    });
    expect(projection.applied.map((entry) => entry.value?.toString()).sort()).toEqual(["a", "b", "c", "d", "e"]);
    expect(rebuilds).toBe(2);
    expect(await supervisor.check.probe()).toBe(true);
  }, 60_000);

  it("completes a rebuild while the topic keeps growing (the end it must reach is the one when it began) and when a partition ends with a transaction's commit marker", async () => {
    const topic = "test.supervised-busy.v1";
    await migrateTopics(admin, [
      {
        name: topic,
        partitions: 2,
        replicationFactor: 1,
        configs: { "retention.ms": "-1", "min.insync.replicas": "1" },
      },
    ]);
    const transactional = await createTransactionalPublisher(kafka, {
      transactionalId: "test-supervised-busy",
      logger,
    });
    cleanups.push(() => transactional.disconnect());
    // Every record in a transaction: each partition's last offset is a commit marker.
    for (let round = 0; round < 20; round += 1)
      await transactional.runInTransaction((tx) =>
        tx.send(["a", "b"].map((key) => record(topic, key, `${key}${round}`))),
      );
    const projection = memoryProjection();
    // A slow projection behind a producer that never stops: its stored offsets never meet the topic's moving end.
    const slow = {
      loadOffsets: projection.loadOffsets,
      handleBatch: async (batch: ProjectionBatch) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        await projection.handleBatch(batch);
      },
    };
    let producing = true;
    const producer = (async () => {
      for (let round = 20; producing; round += 1) {
        await transactional.runInTransaction((tx) =>
          tx.send(["a", "b"].map((key) => record(topic, key, `${key}${round}`))),
        );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const marker = memoryMarker();
    const supervisor = superviseProjection({
      name: "busy",
      kafka,
      log: logger,
      groupId: "test-supervised-busy",
      topics: [topic],
      marker,
      projection: slow,
      replicationFactor: 1,
      intervalMs: 100,
      maxWaitTimeMs: 100,
    });
    cleanups.push(() => supervisor.stop());
    try {
      await waitFor(async () => (await marker.read()) === PROJECTION_COMPLETE, {
        what: "complete while the topic grows",
        timeoutMs: 30_000,
      });
      // Everything the topic held when the rebuild began was applied by then.
      const applied = new Set(projection.applied.map((entry) => entry.value?.toString()));
      for (let round = 0; round < 20; round += 1)
        for (const key of ["a", "b"]) expect(applied.has(`${key}${round}`)).toBe(true);
    } finally {
      producing = false;
      await producer;
    }

    // Quiet now, its partitions ending with commit markers: a rebuild from scratch still completes.
    marker.clear();
    projection.offsets.clear();
    supervisor.poke();
    await waitFor(async () => (await marker.read()) === PROJECTION_COMPLETE, {
      what: "complete on a quiet transactional topic",
      timeoutMs: 30_000,
    });
  }, 90_000);
});
