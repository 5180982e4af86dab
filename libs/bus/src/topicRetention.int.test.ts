import { join } from "node:path";
import { createLogger } from "@platform/log";
import { TOPICS } from "@platform/proto/topics";
import { type RunningKafka, startKafka, tempDir, waitFor } from "@platform/testing";
import kafkajs, { type Admin, type Kafka } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafkaClient } from "./client.js";
import { ensureTopics } from "./ensureTopics.js";
import { migrateTopics } from "./migrateTopics.js";
import { topicSpecs } from "./topicSpecs.js";

/*
 * A deployment whose topics were all created when every fact topic was kept for ever
 * (`retention.ms=-1`): the chain topics' migration bounds them to 7 days (or the configured
 * retention), and leaves auth's and tc's topics, the only durable record of keys and acceptances,
 * as they are.
 */

const dir = tempDir("topic-retention");
const logger = createLogger({ service: "topic-retention-test", level: "silent" });
const SEVEN_DAYS_MS = String(7 * 24 * 3_600_000);
const THREE_DAYS_MS = 3 * 24 * 3_600_000;
const CHAIN_TOPICS = ["chain.network.v1", "oracle.prices.v1"];
const KEPT_FOREVER = ["auth.api-keys.v1", "tc.acceptances.v1", "chain.intents.v1", "intents.notifications.v1"];
let broker: RunningKafka;
let kafka: Kafka;
let admin: Admin;

beforeAll(async () => {
  broker = await startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") });
  kafka = createKafkaClient({ brokers: broker.brokers, clientId: "topic-retention-test", logger });
  admin = kafka.admin();
  await admin.connect();
  // Every topic of the catalog as the earlier migration made it: each fact topic kept for ever, the
  // refresh tokens for their 31 days, the checkpoints compacted; and an operator's own override.
  await admin.createTopics({
    waitForLeaders: true,
    topics: topicSpecs({ replicationFactor: 1 }).map((spec) => {
      const configs = { ...spec.configs };
      if (CHAIN_TOPICS.includes(spec.name))
        Object.assign(configs, { "retention.ms": "-1", "max.message.bytes": "2000000" });
      return {
        topic: spec.name,
        numPartitions: spec.partitions,
        replicationFactor: 1,
        configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })),
      };
    }),
  });
  await waitFor(async () => (await retentions([...CHAIN_TOPICS, ...KEPT_FOREVER])).every((value) => value === "-1"), {
    what: "the topics created with retention.ms=-1",
    timeoutMs: 20_000,
    intervalMs: 250,
  });
}, 120_000);

afterAll(async () => {
  await admin?.disconnect().catch(() => undefined);
  await broker?.stop();
  dir.remove();
}, 60_000);

async function configsOf(topic: string): Promise<Record<string, string>> {
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: kafkajs.ConfigResourceTypes.TOPIC, name: topic }],
  });
  return Object.fromEntries((resources[0]?.configEntries ?? []).map((entry) => [entry.configName, entry.configValue]));
}

async function retentions(topics: readonly string[]): Promise<string[]> {
  return Promise.all(topics.map(async (topic) => (await configsOf(topic))["retention.ms"] ?? "?"));
}

describe("bounded retention of the chain topics", () => {
  it("the projector's create-only migration reports the difference and leaves the topics to their owner", async () => {
    const specs = topicSpecs({ replicationFactor: 1 }).filter((spec) => CHAIN_TOPICS.includes(spec.name));
    const report = await migrateTopics(admin, specs, { logger, alterConfigs: false });
    expect(report.updated).toEqual([]);
    expect(report.differing).toEqual(
      CHAIN_TOPICS.map((topic) => ({ topic, changes: [{ name: "retention.ms", from: "-1", to: SEVEN_DAYS_MS }] })),
    );
    expect(await retentions(CHAIN_TOPICS)).toEqual(["-1", "-1"]);
  });

  it("the owner's migration alters a chain topic kept for ever to 7 days, and leaves auth's and tc's topics alone", async () => {
    const report = await migrateTopics(admin, topicSpecs({ replicationFactor: 1 }), { logger });
    expect(report.updated).toEqual(
      CHAIN_TOPICS.map((topic) => ({ topic, changes: [{ name: "retention.ms", from: "-1", to: SEVEN_DAYS_MS }] })),
    );
    expect(report.unchanged).toEqual(expect.arrayContaining([...KEPT_FOREVER, TOPICS.authRefreshTokens.name]));
    expect(report.drift).toEqual([]);
    await waitFor(async () => (await retentions(CHAIN_TOPICS)).every((value) => value === SEVEN_DAYS_MS), {
      what: "the chain topics bounded to 7 days",
      timeoutMs: 10_000,
    });
    expect(await retentions(KEPT_FOREVER)).toEqual(KEPT_FOREVER.map(() => "-1"));
    expect((await configsOf(TOPICS.authRefreshTokens.name))["retention.ms"]).toBe(String(31 * 24 * 3_600_000));
    // The operator's other override stays.
    expect((await configsOf("chain.network.v1"))["max.message.bytes"]).toBe("2000000");
  });

  it("a service's ensureTopics applies CHAIN_TOPICS_RETENTION_MS to the chain topics only", async () => {
    const ensured = ensureTopics(kafka, {
      topics: ["chain.network.v1", "oracle.prices.v1", "auth.api-keys.v1", "tc.acceptances.v1"],
      replicationFactor: 1,
      logger,
      chainTopicsRetentionMs: THREE_DAYS_MS,
    });
    try {
      await waitFor(async () => ensured.ready(), { what: "ensureTopics", timeoutMs: 30_000, intervalMs: 100 });
    } finally {
      ensured.stop();
    }
    await waitFor(async () => (await retentions(CHAIN_TOPICS)).every((value) => value === String(THREE_DAYS_MS)), {
      what: "the chain topics at the configured retention",
      timeoutMs: 10_000,
    });
    expect(await retentions(["auth.api-keys.v1", "tc.acceptances.v1"])).toEqual(["-1", "-1"]);
  });
});
