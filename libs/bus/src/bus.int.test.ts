import { join } from "node:path";
import { Writable } from "node:stream";
import { createLogger, type Logger } from "@platform/log";
import { type RunningKafka, startKafka, tempDir, waitFor } from "@platform/testing";
import kafkajs, { type Admin, type Kafka } from "kafkajs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createKafkaClient } from "./client.js";
import type { ConsumedRecord, OutgoingRecord } from "./envelope.js";
import { ProducerFencedError } from "./errors.js";
import { migrateTopics } from "./migrateTopics.js";
import { type ProjectionBatch, type ProjectionConsumer, runProjectionConsumer } from "./projectionConsumer.js";
import { createPublisher } from "./publisher.js";
import { kafkaReadiness } from "./readiness.js";
import { type TopicSpec, topicSpecs } from "./topicSpecs.js";
import { createTransactionalPublisher, type TransactionalPublisher } from "./transactionalPublisher.js";

// One real broker (Kafka 4.x, KRaft) for the whole file; the last test stops and restarts it.
const dir = tempDir("bus");
const logLines: Record<string, unknown>[] = [];
const logger: Logger = createLogger({
  service: "bus-test",
  level: "info",
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
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  broker = await startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") });
  kafka = createKafkaClient({ brokers: broker.brokers, clientId: "bus-test", logger });
  admin = kafka.admin();
  await admin.connect();
});

// Each test stops its clients: a consumer left idle through the broker restart of the last
// test would wait out its session timeout in a rebalance before it could leave.
afterEach(stopClients);

async function stopClients(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
}

afterAll(async () => {
  await stopClients();
  await admin?.disconnect().catch(() => undefined);
  await broker?.stop();
  dir.remove();
});

const testTopic = (name: string, partitions = 1): TopicSpec => ({
  name,
  partitions,
  replicationFactor: 1,
  configs: { "retention.ms": "-1", "min.insync.replicas": "1" },
});

const record = (topic: string, key: string, eventType: string, text = key): OutgoingRecord => ({
  topic,
  key,
  value: Buffer.from(text),
  eventType,
  schema: `platform.test.v1.${eventType}`,
});

async function transactional(transactionalId: string): Promise<TransactionalPublisher> {
  const publisher = await createTransactionalPublisher(kafka, { transactionalId, logger });
  cleanups.push(() => publisher.disconnect());
  return publisher;
}

/** A projection whose "Redis" is a Map: applied records and offsets change together, per batch. */
function memoryProjection(initial: Record<string, string> = {}) {
  const offsets = new Map(Object.entries(initial));
  const applied: ConsumedRecord[] = [];
  const batches: ProjectionBatch[] = [];
  return {
    offsets,
    applied,
    batches,
    loadOffsets: async (topic: string, partition: number) => offsets.get(`${topic}/${partition}`),
    handleBatch: async (batch: ProjectionBatch) => {
      expect(batch.previousOffset).toBe(offsets.get(`${batch.topic}/${batch.partition}`));
      batches.push(batch);
      applied.push(...batch.messages);
      offsets.set(`${batch.topic}/${batch.partition}`, batch.lastOffset);
    },
  };
}

async function consume(
  groupId: string,
  topics: string[],
  projection: Pick<ReturnType<typeof memoryProjection>, "loadOffsets" | "handleBatch">,
): Promise<ProjectionConsumer> {
  const consumer = await runProjectionConsumer(kafka, { groupId, topics, logger, maxWaitTimeMs: 100, ...projection });
  cleanups.push(() => consumer.stop());
  return consumer;
}

async function topicConfig(topic: string, name: string): Promise<string | undefined> {
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: kafkajs.ConfigResourceTypes.TOPIC, name: topic, configNames: [name] }],
  });
  return resources[0]?.configEntries.find((entry) => entry.configName === name)?.configValue;
}

const texts = (records: ConsumedRecord[]) => records.map((entry) => entry.value?.toString());

describe("migrateTopics", () => {
  it("creates the catalog's topics with their settings", async () => {
    const catalog = topicSpecs({ replicationFactor: 1, partitions: { "chain.intents.v1": 3 } });
    const report = await migrateTopics(admin, catalog, { logger });
    expect(report.created.sort()).toEqual(catalog.map((spec) => spec.name).sort());
    expect(report.updated).toEqual([]);
    expect(report.drift).toEqual([]);

    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: ["chain.intents.v1", "ingestor.checkpoints.v1"].map((name) => ({
        type: kafkajs.ConfigResourceTypes.TOPIC,
        name,
        configNames: ["cleanup.policy", "retention.ms", "retention.bytes", "min.insync.replicas"],
      })),
    });
    const configs = (name: string) =>
      Object.fromEntries(
        resources
          .find((entry) => entry.resourceName === name)!
          .configEntries.map((entry) => [entry.configName, entry.configValue]),
      );
    expect(configs("chain.intents.v1")).toMatchObject({
      "cleanup.policy": "delete",
      "retention.ms": "-1",
      "retention.bytes": "-1",
      "min.insync.replicas": "1",
    });
    expect(configs("ingestor.checkpoints.v1")["cleanup.policy"]).toBe("compact");
    const metadata = await admin.fetchTopicMetadata({ topics: ["chain.intents.v1", "ingestor.checkpoints.v1"] });
    expect(metadata.topics.map((topic) => [topic.name, topic.partitions.length]).sort()).toEqual([
      ["chain.intents.v1", 3],
      ["ingestor.checkpoints.v1", 1],
    ]);
  });

  it("is idempotent, restores drifted configs and keeps unrelated overrides", async () => {
    const catalog = topicSpecs({ replicationFactor: 1, partitions: { "chain.intents.v1": 3 } });
    const again = await migrateTopics(admin, catalog);
    expect(again.created).toEqual([]);
    expect(again.updated).toEqual([]);
    expect(again.unchanged.sort()).toEqual(catalog.map((spec) => spec.name).sort());

    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: kafkajs.ConfigResourceTypes.TOPIC,
          name: "chain.intents.v1",
          configEntries: [
            { name: "retention.ms", value: "3600000" },
            { name: "max.message.bytes", value: "2000000" },
          ],
        },
      ],
    });
    // KRaft applies the change through the controller; wait until the broker reports it.
    await waitFor(async () => (await topicConfig("chain.intents.v1", "retention.ms")) === "3600000", {
      what: "the altered retention",
      timeoutMs: 10_000,
    });
    const repaired = await migrateTopics(admin, catalog);
    expect(repaired.updated).toEqual([
      { topic: "chain.intents.v1", changes: [{ name: "retention.ms", from: "3600000", to: "-1" }] },
    ]);
    await waitFor(async () => (await topicConfig("chain.intents.v1", "retention.ms")) === "-1", {
      what: "the restored retention",
      timeoutMs: 10_000,
    });
    expect(await topicConfig("chain.intents.v1", "max.message.bytes")).toBe("2000000");

    const wider = topicSpecs({ replicationFactor: 1, partitions: { "chain.intents.v1": 4 } });
    const drifted = await migrateTopics(admin, wider);
    expect(drifted.drift).toEqual([
      { topic: "chain.intents.v1", partitions: { spec: 4, actual: 3 }, replicationFactor: { spec: 1, actual: 1 } },
    ]);
  });
});

describe("publishers and read_committed consumers", () => {
  it("shows committed transactions and never aborted ones", async () => {
    const topic = "test.transactions.v1";
    await migrateTopics(admin, [testTopic(topic)]);
    const publisher = await transactional("test-tx-1");

    await publisher.runInTransaction(async (tx) => {
      await tx.send([record(topic, "a", "Committed", "c1"), record(topic, "b", "Committed", "c2")]);
      // Consume-transform-produce: consumed offsets commit with the records.
      await tx.sendOffsets({
        consumerGroupId: "test-tx-offsets",
        topics: [{ topic, partitions: [{ partition: 0, offset: "7" }] }],
      });
    });
    // The group coordinator applies transactional offsets once the commit marker is written.
    await waitFor(
      async () => {
        const [committed] = await admin.fetchOffsets({ groupId: "test-tx-offsets", topics: [topic] });
        return committed?.partitions[0]?.offset === "7";
      },
      { what: "the offsets committed with the transaction", timeoutMs: 10_000 },
    );
    const failure = new Error("block could not be read");
    await expect(
      publisher.runInTransaction(async (tx) => {
        await tx.send([record(topic, "a", "Aborted", "x1"), record(topic, "b", "Aborted", "x2")]);
        throw failure;
      }),
    ).rejects.toBe(failure);
    // A send the body does not await still belongs to the transaction.
    const offsetsAfter = await publisher.runInTransaction(async (tx) => {
      void tx.send([record(topic, "c", "Committed", "c3")]);
      return "done";
    });
    expect(offsetsAfter).toBe("done");

    const projection = memoryProjection();
    await consume("test-tx-committed", [topic], projection);
    await waitFor(async () => projection.applied.length >= 3, { what: "committed records", timeoutMs: 20_000 });
    expect(texts(projection.applied)).toEqual(["c1", "c2", "c3"]);
    expect(projection.applied[0]).toMatchObject({
      key: "a",
      eventType: "Committed",
      schema: "platform.test.v1.Committed",
    });
    expect(projection.applied[0]!.eventId).toMatch(/^[0-9a-f-]{36}$/);

    // The aborted records are in the log: a read_uncommitted reader sees them.
    const uncommitted = kafka.consumer({ groupId: "test-tx-uncommitted", readUncommitted: true, maxWaitTimeInMs: 100 });
    cleanups.push(() => uncommitted.disconnect());
    const seen: string[] = [];
    await uncommitted.connect();
    await uncommitted.subscribe({ topic, fromBeginning: true });
    await uncommitted.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
    await waitFor(async () => seen.length >= 5, { what: "all records, aborted included", timeoutMs: 20_000 });
    expect(seen).toEqual(["c1", "c2", "x1", "x2", "c3"]);
    // Give the read_committed projection time to (wrongly) pick up anything more.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(texts(projection.applied)).toEqual(["c1", "c2", "c3"]);
  });

  it("fences the first publisher when a second one takes the same transactional id", async () => {
    const topic = "test.fencing.v1";
    await migrateTopics(admin, [testTopic(topic)]);
    const first = await transactional("test-fence");
    await first.runInTransaction((tx) => tx.send([record(topic, "k", "Block", "first-1")]));

    let second: TransactionalPublisher | undefined;
    await expect(
      first.runInTransaction(async (tx) => {
        await tx.send([record(topic, "k", "Block", "zombie")]);
        // A second instance starts while the first is mid-transaction.
        second = await transactional("test-fence");
      }),
    ).rejects.toBeInstanceOf(ProducerFencedError);
    await expect(first.runInTransaction((tx) => tx.send([record(topic, "k", "Block", "late")]))).rejects.toBeInstanceOf(
      ProducerFencedError,
    );
    await second!.runInTransaction((tx) => tx.send([record(topic, "k", "Block", "second-1")]));

    const projection = memoryProjection();
    await consume("test-fence-reader", [topic], projection);
    await waitFor(async () => projection.applied.length >= 2, { what: "fenced topic records", timeoutMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(texts(projection.applied)).toEqual(["first-1", "second-1"]);
  });

  it("publishes idempotently, grouping records per topic in order", async () => {
    const topic = "test.idempotent.v1";
    await migrateTopics(admin, [testTopic(topic, 2)]);
    const publisher = await createPublisher(kafka);
    cleanups.push(() => publisher.disconnect());
    const written = await publisher.publish(["k1", "k2", "k3", "k4"].map((key) => record(topic, key, "Plain")));
    expect(written.every((batch) => batch.topic === topic && Number(batch.baseOffset) >= 0)).toBe(true);
    expect(await publisher.publish([])).toEqual([]);
    const offsets = await admin.fetchTopicOffsets(topic);
    expect(offsets.reduce((sum, partition) => sum + Number(partition.high), 0)).toBe(4);
  });
});

describe("runProjectionConsumer", () => {
  it("resumes from the offsets the projection stored, applying each record once", async () => {
    const topic = "test.projection.v1";
    await migrateTopics(admin, [testTopic(topic, 2)]);
    const publisher = await createPublisher(kafka);
    cleanups.push(() => publisher.disconnect());
    const keys = Array.from({ length: 12 }, (_, index) => `key-${index}`);
    await publisher.publish(keys.map((key) => record(topic, key, "Counted", `${key}#1`)));
    const perPartition = async () => (await admin.fetchTopicOffsets(topic)).map((partition) => Number(partition.high));
    const [p0, p1] = await perPartition();
    expect(p0! + p1!).toBe(12);
    expect(p0).toBeGreaterThan(2);

    // The projection says it already applied offsets 0..1 of partition 0 (in its Redis).
    const projection = memoryProjection({ [`${topic}/0`]: "1" });
    let failOnce = true;
    const consumer = await consume("test-projection", [topic], {
      loadOffsets: projection.loadOffsets,
      handleBatch: async (batch) => {
        // A failed write (Redis away) is retried without applying anything twice.
        if (failOnce) {
          failOnce = false;
          throw new Error("redis unavailable");
        }
        await projection.handleBatch(batch);
      },
    });
    await waitFor(async () => projection.applied.length >= 10, { what: "first pass", timeoutMs: 30_000 });
    await consumer.stop();
    const firstPass = projection.applied.map((entry) => `${entry.partition}:${entry.offset}`);
    expect(firstPass.filter((entry) => entry.startsWith("0:")).map((entry) => Number(entry.slice(2)))).toEqual(
      Array.from({ length: p0! - 2 }, (_, index) => index + 2),
    );
    expect(projection.applied).toHaveLength(10);
    expect(projection.offsets.get(`${topic}/0`)).toBe(String(p0! - 1));
    expect(projection.offsets.get(`${topic}/1`)).toBe(String(p1! - 1));

    // More facts arrive while the projection is down; a new member of the group resumes.
    await publisher.publish(keys.slice(0, 5).map((key) => record(topic, key, "Counted", `${key}#2`)));
    await consume("test-projection", [topic], projection);
    await waitFor(async () => projection.applied.length >= 15, { what: "second pass", timeoutMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const all = projection.applied.map((entry) => `${entry.partition}:${entry.offset}`);
    expect(new Set(all).size).toBe(all.length);
    expect(projection.applied).toHaveLength(15);
    expect(projection.applied.filter((entry) => entry.value?.toString().endsWith("#2"))).toHaveLength(5);
  });
});

describe("runProjectionConsumer supervision", () => {
  it("replaces a consumer kafkajs gave up on, and applies the batch once", async () => {
    const topic = "test.replace.v1";
    await migrateTopics(admin, [testTopic(topic)]);
    const publisher = await createPublisher(kafka);
    cleanups.push(() => publisher.disconnect());
    await publisher.publish(["a", "b", "c"].map((key) => record(topic, key, "Counted")));

    const projection = memoryProjection();
    let calls = 0;
    await consume("test-replace", [topic], {
      loadOffsets: projection.loadOffsets,
      handleBatch: async (batch) => {
        calls += 1;
        // kafkajs treats a TypeError (a projection bug, a payload it cannot decode) as fatal.
        if (calls === 1) throw new TypeError("cannot read properties of undefined");
        await projection.handleBatch(batch);
      },
    });
    await waitFor(async () => projection.applied.length >= 3, {
      what: "records after the replacement",
      timeoutMs: 20_000,
    });
    expect(texts(projection.applied)).toEqual(["a", "b", "c"]);
    expect(
      logLines.some(
        (line) => line.msg === "projection consumer crashed; replacing it" && line.groupId === "test-replace",
      ),
    ).toBe(true);
  });
});

describe("kafkaReadiness and broker restarts", () => {
  it("answers false within 5 s of the broker stopping, true after it restarts; clients carry on", {
    timeout: 90_000,
  }, async () => {
    const topic = "test.restart.v1";
    await migrateTopics(admin, [testTopic(topic)]);
    const publisher = await createPublisher(kafka);
    cleanups.push(() => publisher.disconnect());
    await publisher.publish([record(topic, "k", "Before", "before")]);
    const projection = memoryProjection();
    await consume("test-restart", [topic], projection);
    // A client that gives up at once: kafkajs lets its consumer crash for good during the outage.
    const fragile = createKafkaClient({
      brokers: broker.brokers,
      clientId: "bus-test-fragile",
      logger,
      retry: { retries: 0 },
    });
    const fragileProjection = memoryProjection();
    const fragileConsumer = await runProjectionConsumer(fragile, {
      groupId: "test-restart-fragile",
      topics: [topic],
      logger,
      maxWaitTimeMs: 100,
      // The broker's minimum: the replaced member's session expires soon after the restart.
      sessionTimeoutMs: 6_000,
      ...fragileProjection,
    });
    cleanups.push(() => fragileConsumer.stop());
    await waitFor(async () => projection.applied.length >= 1 && fragileProjection.applied.length >= 1, {
      what: "record before the restart",
      timeoutMs: 20_000,
    });

    const probeAdmin = createKafkaClient({ brokers: broker.brokers, clientId: "bus-test-readiness", logger }).admin();
    cleanups.push(() => probeAdmin.disconnect());
    expect(await kafkaReadiness(probeAdmin, 2_000)).toBe(true);

    await broker.stop();
    const stoppedAt = Date.now();
    await waitFor(async () => !(await kafkaReadiness(probeAdmin, 1_000)), {
      what: "not ready",
      timeoutMs: 5_000,
      intervalMs: 200,
    });
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    // A probe on a down broker answers within its timeout, without throwing.
    const probedAt = Date.now();
    expect(await kafkaReadiness(probeAdmin, 500)).toBe(false);
    expect(Date.now() - probedAt).toBeLessThan(1_500);

    broker = await startKafka({
      port: broker.port,
      controllerPort: broker.controllerPort,
      dataDir: join(dir.path, "kafka"),
      logFile: join(dir.path, "kafka.log"),
    });
    await waitFor(() => kafkaReadiness(probeAdmin, 1_000), { what: "ready again", timeoutMs: 20_000, intervalMs: 200 });
    // The restarted broker kept its topics and records; the publisher and the consumer recover by themselves.
    expect(await admin.listTopics()).toContain(topic);
    await publisher.publish([record(topic, "k", "After", "after")]);
    await waitFor(async () => projection.applied.length >= 2 && fragileProjection.applied.length >= 2, {
      what: "record after the restart",
      timeoutMs: 40_000,
    });
    expect(texts(projection.applied)).toEqual(["before", "after"]);
    expect(texts(fragileProjection.applied)).toEqual(["before", "after"]);
    // Outages are warnings: nothing was logged at error.
    expect(logLines.filter((line) => line.level === "error")).toEqual([]);
  });
});
