import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createLogger } from "@platform/log";
import { TOPICS } from "@platform/proto/topics";
import { type RunningKafkaCluster, startKafkaCluster, tempDir, waitFor } from "@platform/testing";
import kafkajs, { type Admin } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyKafkaAcls } from "./applyKafkaAcls.js";
import { createKafkaClient, type KafkaCredentials } from "./client.js";
import { platformAclBindings } from "./kafkaAcl.js";
import { migrateTopics } from "./migrateTopics.js";
import { topicSpecs } from "./topicSpecs.js";
import { createTransactionalPublisher, type TransactionalPublisher } from "./transactionalPublisher.js";

/*
 * Three brokers as the fault tests run them: SASL/SCRAM users and the platform's ACLs, the
 * topics from the migration with three replicas and min.insync.replicas 2. The chain-ingestor's
 * user writes numbered records in transactions while the leader of the partition it writes to is
 * killed with SIGKILL and later restarted: commits go on after the leader election, the node
 * rejoins, and a read_committed consumer sees every number exactly once, in order.
 */

const dir = tempDir("kafka-cluster");
const logger = createLogger({ service: "kafka-cluster-test", level: "silent" });
const secret = () => randomBytes(24).toString("base64url");
const admin: KafkaCredentials = { username: "admin", password: secret() };
const ingestor: KafkaCredentials = { username: "chain-ingestor", password: secret() };
const topic = TOPICS.chainNetwork.name;
const recordsPerTransaction = 5;
let cluster: RunningKafkaCluster;
let superUser: Admin;
let startMs = 0;

beforeAll(async () => {
  const startedAt = Date.now();
  cluster = await startKafkaCluster({
    brokers: 3,
    dataDir: join(dir.path, "data"),
    logDir: join(dir.path, "logs"),
    sasl: { admin, users: [ingestor] },
  });
  startMs = Date.now() - startedAt;
  console.info(`three-broker cluster registered in ${startMs} ms`);
  superUser = client(admin).admin();
  await superUser.connect();
  await applyKafkaAcls(superUser, platformAclBindings());
}, 240_000);

afterAll(async () => {
  await superUser?.disconnect().catch(() => undefined);
  await cluster?.stop();
  dir.remove();
}, 120_000);

function client(credentials: KafkaCredentials) {
  return createKafkaClient({ brokers: cluster.brokers, clientId: `test-${credentials.username}`, logger, credentials });
}

describe("a three-broker KRaft cluster", () => {
  it("registers every broker, and the migration creates topics with three replicas and min.insync.replicas 2", async () => {
    expect(cluster.brokers).toHaveLength(3);
    expect((await superUser.describeCluster()).brokers.map((broker) => broker.nodeId).sort()).toEqual([1, 2, 3]);

    const specs = topicSpecs({ replicationFactor: cluster.replicationFactor });
    const report = await migrateTopics(superUser, specs, { logger, timeoutMs: 60_000 });
    expect(report.drift).toEqual([]);
    expect(report.created.sort()).toEqual(specs.map((spec) => spec.name).sort());

    const metadata = await superUser.fetchTopicMetadata({ topics: specs.map((spec) => spec.name) });
    for (const described of metadata.topics) {
      for (const partition of described.partitions) {
        expect(partition.replicas.sort(), `${described.name}/${partition.partitionId}`).toEqual([1, 2, 3]);
      }
    }
    const configs = await superUser.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: kafkajs.ConfigResourceTypes.TOPIC, name: topic, configNames: ["min.insync.replicas"] }],
    });
    expect(configs.resources[0]?.configEntries[0]?.configValue).toBe("2");
  });

  it("keeps committing transactions through a SIGKILL of the partition leader; the node rejoins; nothing is lost or duplicated", async () => {
    const publisher = await createTransactionalPublisher(client(ingestor), {
      transactionalId: "chain-ingestor-native-cluster-test",
      logger,
    });
    const writer = startWriter(publisher);
    try {
      await waitFor(async () => writer.committed.length >= 10, {
        what: "10 transactions before the kill",
        timeoutMs: 60_000,
      });
      // The transaction-state topic, like the offsets topic, has a replica on every node.
      const internal = await superUser.fetchTopicMetadata({ topics: ["__transaction_state"] });
      expect(internal.topics[0]?.partitions[0]?.replicas.sort()).toEqual([1, 2, 3]);

      const partition = await partitionWritten(superUser);
      const leader = await leaderOf(superUser, partition);
      const killedAt = Date.now();
      await cluster.kill(leader, "SIGKILL");
      const commitsBeforeKill = writer.committed.length;

      await waitFor(async () => writer.committed.some((at) => at > killedAt), {
        what: "a commit after the leader was killed",
        timeoutMs: 120_000,
        intervalMs: 50,
      });
      const recoveryMs = (writer.committed.find((at) => at > killedAt) ?? Date.now()) - killedAt;
      console.info(
        `node ${leader} (leader of ${topic}/${partition}) killed: first commit after ${recoveryMs} ms, ` +
          `${writer.failures} failed attempts`,
      );
      expect(recoveryMs).toBeLessThan(90_000);
      const newLeader = await leaderOf(superUser, partition);
      expect(newLeader).not.toBe(leader);
      await waitFor(async () => writer.committed.length >= commitsBeforeKill + 10, {
        what: "10 transactions with a node down",
        timeoutMs: 60_000,
      });

      const restartedAt = Date.now();
      await cluster.restart(leader);
      await waitFor(async () => (await isrSizes(superUser)).every((size) => size === 3), {
        what: `node ${leader} back in every in-sync replica set of ${topic}`,
        timeoutMs: 120_000,
        intervalMs: 500,
      });
      console.info(`node ${leader} restarted and back in sync after ${Date.now() - restartedAt} ms`);
      const commitsAfterRejoin = writer.committed.length;
      await waitFor(async () => writer.committed.length >= commitsAfterRejoin + 5, {
        what: "5 transactions after the rejoin",
        timeoutMs: 60_000,
      });
    } finally {
      await writer.stop();
      await publisher.disconnect().catch(() => undefined);
    }

    const expected = writer.committed.length * recordsPerTransaction;
    const seen = await readCommitted(expected);
    expect(seen).toHaveLength(expected);
    expect(seen).toEqual(Array.from({ length: expected }, (_, index) => index));
  }, 420_000);
});

describe("a transaction over every partition, while a leader dies", () => {
  it("commits each transaction's records in every partition, none lost with the dead leader's partition", async () => {
    // Six partitions over three leaders: each transaction writes to every broker, as a block's records do.
    const spread = `spread-${secret().slice(0, 6).toLowerCase()}`;
    await superUser.createTopics({
      topics: [
        {
          topic: spread,
          numPartitions: 6,
          replicationFactor: 3,
          configEntries: [{ name: "min.insync.replicas", value: "2" }],
        },
      ],
      waitForLeaders: true,
    });
    const publisher = await createTransactionalPublisher(client(admin), {
      transactionalId: `spread-${secret()}`,
      logger,
    });
    const perTransaction = 12;
    const committed: number[] = [];
    let stopped = false;
    const loop = (async () => {
      while (!stopped) {
        const first = committed.length * perTransaction;
        try {
          await publisher.runInTransaction((tx) =>
            tx.send(
              Array.from({ length: perTransaction }, (_, index) => ({
                topic: spread,
                key: `key-${index}`,
                value: Buffer.from(String(first + index)),
                eventType: "Numbered",
                schema: "test.Numbered",
              })),
            ),
          );
          committed.push(Date.now());
        } catch {
          await sleep(100);
        }
      }
    })();
    try {
      // The fault bites only when the stop lands while a produce request waits on the victim (not
      // the coordinator), so this round catches kafkajs' loss sometimes, not always; the unit test
      // of partitionSends.ts holds the rule that prevents it (one partition per produce call).
      for (const partition of [0]) {
        const before = committed.length;
        await waitFor(async () => committed.length >= before + 20, {
          what: "20 transactions before the kill",
          timeoutMs: 60_000,
        });
        const metadata = await superUser.fetchTopicMetadata({ topics: [spread] });
        const victim = metadata.topics[0]!.partitions.find((entry) => entry.partitionId === partition)!.leader;
        // Stopped first, so a send is in flight to it while the other leaders answer theirs; then
        // killed, which closes that request's connection: the retry must still carry its records.
        cluster.node(victim).process.kill("SIGSTOP");
        await sleep(2_000);
        const killedAt = Date.now();
        await cluster.kill(victim, "SIGKILL");
        await waitFor(async () => committed.filter((at) => at > killedAt).length >= 10, {
          what: "10 transactions after the kill",
          timeoutMs: 120_000,
          intervalMs: 50,
        });
        await cluster.restart(victim);
      }
      stopped = true;
      await loop;
    } finally {
      stopped = true;
      await loop;
      await publisher.disconnect().catch(() => undefined);
    }
    const expected = committed.length * perTransaction;
    const consumer = client(admin).consumer({ groupId: `reader-${secret()}`, readUncommitted: false });
    const seen: number[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: spread, fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(Number(message.value?.toString())) });
      await waitFor(async () => seen.length >= expected, {
        what: `${expected} committed records`,
        timeoutMs: 60_000,
      }).catch(() => undefined);
      await sleep(1_000);
    } finally {
      await consumer.disconnect();
    }
    // Every committed transaction whole, once: a partition's records dropped on the failover would leave a hole.
    expect(seen.sort((left, right) => left - right)).toEqual(Array.from({ length: expected }, (_, index) => index));
  }, 420_000);
});

/**
 * Commits transactions of numbered records (5 each, one key, so one partition) one after another;
 * a failed transaction is retried with the same numbers on the publisher's fresh producer.
 */
function startWriter(publisher: TransactionalPublisher) {
  const committed: number[] = [];
  let failures = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const first = committed.length * recordsPerTransaction;
      try {
        await publisher.runInTransaction((tx) =>
          tx.send(
            Array.from({ length: recordsPerTransaction }, (_, index) => ({
              topic,
              key: "one-partition",
              value: Buffer.from(String(first + index)),
              eventType: "Numbered",
              schema: "test.Numbered",
            })),
          ),
        );
        committed.push(Date.now());
      } catch {
        failures += 1;
        await sleep(200);
      }
    }
  })();
  return {
    committed,
    get failures() {
      return failures;
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

async function partitionWritten(admin: Admin): Promise<number> {
  const offsets = await admin.fetchTopicOffsets(topic);
  const written = offsets.filter((offset) => Number(offset.high) > 0);
  expect(written).toHaveLength(1);
  return written[0]?.partition ?? -1;
}

async function leaderOf(admin: Admin, partition: number): Promise<number> {
  const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
  const leader = metadata.topics[0]?.partitions.find((entry) => entry.partitionId === partition)?.leader;
  if (leader === undefined) throw new Error(`no leader for ${topic}/${partition}`);
  return leader;
}

async function isrSizes(admin: Admin): Promise<number[]> {
  const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
  return metadata.topics[0]?.partitions.map((partition) => partition.isr.length) ?? [];
}

/** The numbers a read_committed consumer sees, from the start, once it has seen `count` of them (or timed out). */
async function readCommitted(count: number): Promise<number[]> {
  const consumer = client(admin).consumer({ groupId: `reader-${secret()}`, readUncommitted: false });
  const seen: number[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(Number(message.value?.toString()));
      },
    });
    await waitFor(async () => seen.length >= count, { what: `${count} committed records`, timeoutMs: 60_000 }).catch(
      () => undefined,
    );
    // Anything past `count` would be a duplicate: give it a moment to show up.
    await sleep(1_000);
  } finally {
    await consumer.disconnect();
  }
  return seen;
}
