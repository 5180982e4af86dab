import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createLogger } from "@platform/log";
import { TOPICS, type TopicName } from "@platform/proto/topics";
import { type RunningKafka, startKafka, tempDir, waitFor } from "@platform/testing";
import kafkajs, { type Kafka } from "kafkajs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { applyKafkaAcls } from "./applyKafkaAcls.js";
import { createKafkaClient, type KafkaCredentials } from "./client.js";
import type { OutgoingRecord } from "./envelope.js";
import {
  aclBindings,
  chainIngestorGrants,
  type IngestorSourceName,
  ingestorTransactionalId,
  KAFKA_GRANTS,
  KAFKA_SERVICES,
  type KafkaService,
  platformAclBindings,
} from "./kafkaAcl.js";
import { migrateTopics } from "./migrateTopics.js";
import { migratePlatformTopics } from "./platformTopics.js";
import { runProjectionConsumer } from "./projectionConsumer.js";
import { createPublisher } from "./publisher.js";
import { MissingTopicsError, requireTopics } from "./requireTopics.js";
import { topicSpecs } from "./topicSpecs.js";
import { createTransactionalPublisher } from "./transactionalPublisher.js";

/*
 * The broker as the local stack runs it (SASL/SCRAM users, StandardAuthorizer, nothing allowed
 * without an ACL) with the platform's ACL table: each service can do what its code does, and is
 * refused what a compromised pod of it would want to do to another's data. Run against a broker
 * without credentials or with a wider grant, the refusals below succeed and the tests fail.
 */

const dir = tempDir("kafka-acl");
const logger = createLogger({ service: "kafka-acl-test", level: "silent" });
const secret = () => randomBytes(24).toString("base64url");
const admin: KafkaCredentials = { username: "admin", password: secret() };
const users = Object.fromEntries(
  KAFKA_SERVICES.map((service) => [service, { username: service, password: secret() }]),
) as Record<KafkaService, KafkaCredentials>;
/** Each ingestor source's own user, as each source's Deployment has in Kubernetes (its part of the grant). */
const INGESTOR_SOURCES: IngestorSourceName[] = ["intents", "native", "price"];
const sourceUsers = Object.fromEntries(
  INGESTOR_SOURCES.map((source) => [source, { username: `chain-ingestor-${source}`, password: secret() }]),
) as Record<IngestorSourceName, KafkaCredentials>;
let broker: RunningKafka;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  broker = await startKafka({
    dataDir: join(dir.path, "kafka"),
    logFile: join(dir.path, "kafka.log"),
    sasl: { admin, users: [...Object.values(users), ...Object.values(sourceUsers)] },
  });
  const superUser = clientAs(admin).admin();
  await superUser.connect();
  try {
    await applyKafkaAcls(superUser, [
      ...platformAclBindings(),
      ...INGESTOR_SOURCES.flatMap((source) => aclBindings(sourceUsers[source].username, chainIngestorGrants[source])),
    ]);
  } finally {
    await superUser.disconnect();
  }
}, 120_000);

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

afterAll(async () => {
  await broker?.stop();
  dir.remove();
}, 60_000);

/**
 * A client as `user`, with the services' retries: a fresh broker answers the first group join and
 * the first transaction "coordinator not available" for a moment, while a refusal is never retried.
 */
function clientAs(user: KafkaCredentials): Kafka {
  return createKafkaClient({
    brokers: broker.brokers,
    clientId: `acl-test-${user.username}`,
    logger,
    credentials: user,
  });
}

const serviceClient = (service: KafkaService) => clientAs(users[service]);

/** A client as `user` whose kafkajs log lines (debug included) are kept. */
function clientWithLog(user: KafkaCredentials): { kafka: Kafka; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  const traced = createLogger({ service: "kafka-acl-test", level: "trace", destination });
  return {
    kafka: createKafkaClient({ brokers: broker.brokers, clientId: "acl-test", logger: traced, credentials: user }),
    lines,
  };
}

async function adminOf(kafka: Kafka) {
  const client = kafka.admin();
  await client.connect();
  cleanups.push(() => client.disconnect());
  return client;
}

const specsOf = (topics: readonly TopicName[]) =>
  topicSpecs({ replicationFactor: 1 }).filter((spec) => topics.includes(spec.name as TopicName));

const record = (topic: TopicName, key: string): OutgoingRecord => ({
  topic,
  key,
  value: Buffer.from(key),
  eventType: "AclTest",
  schema: "platform.test.v1.AclTest",
});

/** A plain producer (not idempotent: the refusal is then the topic's, not the producer id's). */
async function plainSend(kafka: Kafka, topic: string): Promise<void> {
  const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } });
  cleanups.push(() => producer.disconnect());
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: [{ key: "forged", value: "forged" }] });
}

/** Joins `groupId` reading `topics`; resolves with the error the consumer crashed with, if it did. */
async function joinGroup(kafka: Kafka, groupId: string, topics: string[]): Promise<unknown> {
  const consumer = kafka.consumer({ groupId, retry: { retries: 5, restartOnFailure: async () => false } });
  cleanups.push(() => consumer.disconnect());
  let crashed: (error: unknown) => void = () => undefined;
  const crash = new Promise<unknown>((resolve) => (crashed = resolve));
  consumer.on(consumer.events.CRASH, (event) => crashed(event.payload.error));
  const joined = new Promise<unknown>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve(undefined)));
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  await consumer.run({ eachMessage: async () => undefined });
  return Promise.race([crash, joined]);
}

const refused = /authoriz/i;

describe("each service can do what its code does, with its own user only", () => {
  it("the topics step creates every topic and brings it to spec; each service finds its own without creating any", async () => {
    // Retried as a Job is: right after CreateTopics the broker may not know the new topics yet
    // (KRaft publishes them a moment after the controller commits).
    const report = await waitFor(
      () => migratePlatformTopics(serviceClient("topics"), { replicationFactor: 1, logger }),
      { what: "the platform's topics", timeoutMs: 20_000, intervalMs: 250 },
    );
    expect(report.drift).toEqual([]);
    expect(await (await adminOf(clientAs(admin))).listTopics()).toEqual(
      expect.arrayContaining(Object.values(TOPICS).map((topic) => topic.name)),
    );
    for (const service of KAFKA_SERVICES.filter((name) => name !== "topics")) {
      const grant = KAFKA_GRANTS[service];
      await requireTopics(await adminOf(serviceClient(service)), [...grant.consumes, ...grant.produces]);
    }
  });

  it("auth, tc and intents-gateway publish their own facts (idempotent producers)", async () => {
    const writes: Array<[KafkaService, TopicName]> = [
      ["auth", TOPICS.authApiKeys.name],
      ["auth", TOPICS.authRefreshTokens.name],
      ["tc", TOPICS.tcAcceptances.name],
      ["intents-gateway", TOPICS.intentsNotifications.name],
    ];
    for (const [service, topic] of writes) {
      const publisher = await createPublisher(serviceClient(service));
      cleanups.push(() => publisher.disconnect());
      expect(await publisher.publish([record(topic, `${service}-1`)]), `${service} → ${topic}`).toHaveLength(1);
    }
  });

  it("the chain-ingestor's sources publish in transactions under their own ids, and read their checkpoints back in a throw-away group", async () => {
    const sources: Array<[string, TopicName]> = [
      [ingestorTransactionalId("intents", "origin"), TOPICS.chainIntents.name],
      [ingestorTransactionalId("native", "finney"), TOPICS.chainNetwork.name],
      [ingestorTransactionalId("price", "origin"), TOPICS.oraclePrices.name],
    ];
    for (const [transactionalId, topic] of sources) {
      const publisher = await createTransactionalPublisher(serviceClient("chain-ingestor"), {
        transactionalId,
        logger,
      });
      cleanups.push(() => publisher.disconnect());
      await publisher.runInTransaction((tx) =>
        tx.send([record(topic, transactionalId), record(TOPICS.ingestorCheckpoints.name, transactionalId)]),
      );
    }
    const ingestor = serviceClient("chain-ingestor");
    const groupId = `chain-ingestor-checkpoint-reader-${secret()}`;
    expect(await joinGroup(ingestor, groupId, [TOPICS.ingestorCheckpoints.name])).toBeUndefined();
    await cleanups.pop()!();
    await (await adminOf(ingestor)).deleteGroups([groupId]);
  });

  it("each projection consumes its topics in its own group", async () => {
    const seen = new Set<string>();
    for (const [groupId, topics] of [
      ["projector-intents", [TOPICS.chainIntents.name, TOPICS.intentsNotifications.name]],
      ["projector-market", [TOPICS.chainNetwork.name, TOPICS.oraclePrices.name]],
    ] as const) {
      const consumer = await runProjectionConsumer(serviceClient("projector"), {
        groupId,
        topics: [...topics],
        loadOffsets: async () => undefined,
        handleBatch: async (batch) => void seen.add(`${groupId}:${batch.topic}`),
        logger,
        maxWaitTimeMs: 100,
      });
      cleanups.push(() => consumer.stop());
    }
    const wanted = [
      `projector-intents:${TOPICS.chainIntents.name}`,
      `projector-intents:${TOPICS.intentsNotifications.name}`,
      `projector-market:${TOPICS.chainNetwork.name}`,
      `projector-market:${TOPICS.oraclePrices.name}`,
    ];
    await waitFor(async () => wanted.every((key) => seen.has(key)), {
      what: "every projection's records",
      timeoutMs: 30_000,
    });
  });
});

describe("and is refused what lies outside its grant", () => {
  it("no service but the chain-ingestor writes chain facts: the projector and intents-gateway cannot produce to chain.intents.v1", async () => {
    await expect(plainSend(serviceClient("projector"), TOPICS.chainIntents.name)).rejects.toThrow(refused);
    await expect(plainSend(serviceClient("intents-gateway"), TOPICS.chainIntents.name)).rejects.toThrow(refused);
    await expect(plainSend(serviceClient("auth"), TOPICS.chainNetwork.name)).rejects.toThrow(refused);
  });

  it("a service cannot forge another's facts: the chain-ingestor cannot publish API-key events, tc none of auth's", async () => {
    const ingestor = await createPublisher(serviceClient("chain-ingestor"));
    cleanups.push(() => ingestor.disconnect());
    await expect(ingestor.publish([record(TOPICS.authApiKeys.name, "forged")])).rejects.toThrow();
    await expect(plainSend(serviceClient("tc"), TOPICS.authApiKeys.name)).rejects.toThrow(refused);
  });

  it("intents-gateway cannot read auth's topics, nor see where they end", async () => {
    const gateway = await adminOf(serviceClient("intents-gateway"));
    await expect(gateway.fetchTopicOffsets(TOPICS.authApiKeys.name)).rejects.toThrow(refused);
    // With a group of its own (the projector's), reading auth's topic is still refused: the topic's ACL decides.
    const consumer = serviceClient("projector").consumer({ groupId: "projector-intents" });
    cleanups.push(() => consumer.disconnect());
    await consumer.connect();
    await expect(consumer.subscribe({ topics: [TOPICS.authApiKeys.name] })).rejects.toThrow(refused);
  });

  it("a service cannot join another's consumer group, even on topics it may read", async () => {
    // The control: on the same topic, its own group joins.
    expect(await joinGroup(serviceClient("tc"), "tc-acceptances", [TOPICS.tcAcceptances.name])).toBeUndefined();
    for (const [service, group, topic] of [
      ["tc", "projector-intents", TOPICS.tcAcceptances.name],
      ["projector", "auth-registry", TOPICS.chainNetwork.name],
    ] as const) {
      // kafkajs tells the refused coordinator lookup only in its log; it throws "coordinator not found".
      const { kafka, lines } = clientWithLog(users[service]);
      expect(String(await joinGroup(kafka, group, [topic])), `${service} in ${group}`).toMatch(/group coordinator/i);
      expect(
        lines.some((line) => /Group authorization failed/.test(line)),
        `${service} in ${group}`,
      ).toBe(true);
    }
  });

  it("no service but the chain-ingestor takes a chain-ingestor transactional id (which would fence the ingestor off), and it takes no other", async () => {
    await expect(
      createTransactionalPublisher(serviceClient("projector"), {
        transactionalId: ingestorTransactionalId("intents", "origin"),
        logger,
      }),
    ).rejects.toThrow();
    // The intents source's ids used to be `chain-ingestor-<chain>`, a prefix that covered every source's.
    await expect(
      createTransactionalPublisher(serviceClient("chain-ingestor"), {
        transactionalId: "chain-ingestor-origin",
        logger,
      }),
    ).rejects.toThrow();
    await expect(
      createTransactionalPublisher(serviceClient("chain-ingestor"), { transactionalId: "tc-origin", logger }),
    ).rejects.toThrow();
  });

  it("a consumer cannot change or delete the topics it reads, and no service creates a topic outside its grant", async () => {
    const projector = await adminOf(serviceClient("projector"));
    await expect(
      projector.alterConfigs({
        validateOnly: false,
        resources: [
          {
            type: kafkajs.ConfigResourceTypes.TOPIC,
            name: TOPICS.chainIntents.name,
            configEntries: [{ name: "retention.ms", value: "1" }],
          },
        ],
      }),
    ).rejects.toThrow(refused);
    await expect(projector.deleteTopics({ topics: [TOPICS.chainIntents.name], timeout: 5_000 })).rejects.toThrow();
    const auth = await adminOf(serviceClient("auth"));
    const creation = await auth
      .createTopics({ topics: [{ topic: "rogue.v1", numPartitions: 1, replicationFactor: 1 }] })
      .then(
        () => undefined,
        (error: { errors?: unknown[] }) => error,
      );
    // kafkajs gathers the topics' errors into one.
    expect(String(creation?.errors?.[0])).toMatch(refused);
    expect(await (await adminOf(clientAs(admin))).listTopics()).not.toContain("rogue.v1");
  });

  it("no service creates or changes even the topics it writes: that is the topics step's alone", async () => {
    const ingestor = await adminOf(serviceClient("chain-ingestor"));
    const retention = [{ name: "retention.ms", value: "1" }];
    await expect(
      ingestor.alterConfigs({
        validateOnly: false,
        resources: [
          { type: kafkajs.ConfigResourceTypes.TOPIC, name: TOPICS.chainNetwork.name, configEntries: retention },
        ],
      }),
    ).rejects.toThrow(refused);
    const auth = await adminOf(serviceClient("auth"));
    await expect(
      auth.alterConfigs({
        validateOnly: false,
        resources: [
          { type: kafkajs.ConfigResourceTypes.TOPIC, name: TOPICS.authApiKeys.name, configEntries: retention },
        ],
      }),
    ).rejects.toThrow(refused);
    // A topic of the catalog gone (say, deleted by an operator) is not brought back by its writer.
    const specs = specsOf([TOPICS.tcAcceptances.name]);
    const superUser = await adminOf(clientAs(admin));
    await superUser.deleteTopics({ topics: [TOPICS.tcAcceptances.name], timeout: 10_000 });
    await expect(migrateTopics(await adminOf(serviceClient("tc")), specs)).rejects.toThrow();
    await expect(requireTopics(await adminOf(serviceClient("tc")), [TOPICS.tcAcceptances.name])).rejects.toThrow(
      MissingTopicsError,
    );
    await waitFor(() => migratePlatformTopics(serviceClient("topics"), { replicationFactor: 1, logger }), {
      what: "the topics step again",
      timeoutMs: 20_000,
      intervalMs: 250,
    });
  });

  it("a wrong password, another service's name or no credentials at all are turned away", async () => {
    await expect(clientAs({ username: "projector", password: secret() }).admin().connect()).rejects.toThrow();
    await expect(
      clientAs({ username: "chain-ingestor", password: users.projector.password }).admin().connect(),
    ).rejects.toThrow();
    const anonymous = createKafkaClient({
      brokers: broker.brokers,
      clientId: "acl-test-anonymous",
      logger,
      connectionTimeoutMs: 1_000,
      requestTimeoutMs: 2_000,
      retry: { retries: 0 },
    }).admin();
    cleanups.push(() => anonymous.disconnect());
    await expect(anonymous.connect().then(() => anonymous.listTopics())).rejects.toThrow();
  });
});

describe("each ingestor source's own user (one Deployment each): only its own transactional ids and topics", () => {
  it("takes the transactional ids of its own prefix, and none of another source's", async () => {
    for (const source of INGESTOR_SOURCES) {
      const own = await createTransactionalPublisher(clientAs(sourceUsers[source]), {
        transactionalId: ingestorTransactionalId(source, "origin"),
        logger,
      });
      cleanups.push(() => own.disconnect());
      for (const other of INGESTOR_SOURCES.filter((candidate) => candidate !== source))
        await expect(
          createTransactionalPublisher(clientAs(sourceUsers[source]), {
            transactionalId: ingestorTransactionalId(other, "origin"),
            logger,
          }),
          `${source} taking ${other}'s id`,
        ).rejects.toThrow();
    }
  });

  it("the price source cannot write chain.network.v1: its removals travel on oracle.prices.v1", async () => {
    await expect(plainSend(clientAs(sourceUsers.price), TOPICS.chainNetwork.name)).rejects.toThrow(refused);
    await expect(plainSend(clientAs(sourceUsers.price), TOPICS.oraclePrices.name)).resolves.toBeUndefined();
  });
});
