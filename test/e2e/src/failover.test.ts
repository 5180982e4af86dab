import { type Admin, createKafkaClient, type Kafka } from "@platform/bus";
import {
  freePorts,
  type RunningStack,
  redisAdminUrl,
  silentProgress,
  startStack,
  testRuntime,
} from "@platform/local-stack";
import { createLogger } from "@platform/log";
import { TOPICS } from "@platform/proto/topics";
import { accountsKeys, marketKeys, subnetsKeys } from "@platform/read-models";
import { createRedis, redisReadiness } from "@platform/store";
import { rpcRequest, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAsOfReaders } from "./support/asOfReaders.js";
import { type DataApi, dataApi } from "./support/dataStack.js";
import { connectRuntime, type RuntimeReads } from "./support/nativeRuntime.js";

/*
 * Failover under load (issue 34, point 4), on one stack whose Kafka is a three-node KRaft cluster
 * (topics with three replicas, min.insync.replicas 2) and whose read models live on a Redis Cluster
 * (3 primaries, a replica each; data-query reads from replicas, the projector waits for one
 * replica per commit), the native network under its block timer.
 *
 * kill -9 of the Kafka partition leader the native source writes its per-block network totals to,
 * while blocks keep coming. Ingestion and projection must resume by themselves, nothing lost or
 * doubled:
 * - in Kafka, a read_committed consumer sees one NetworkStatsSnapshot per block, numbers
 *   contiguous, none twice;
 * - in the read model, the network stats' extrinsics and transfers counts (summed block by block
 *   by the market projection) equal a count of the chain's blocks through the answer's as_of, which
 *   a block lost or applied twice would break.
 *
 * Then the Redis primary that holds the data read models (`{data}`), while clients read: stopped
 * (SIGSTOP, a network partition) for longer than cluster-node-timeout, so its replica is promoted,
 * and resumed; then the new primary killed with SIGKILL. Each time every answer must be 200, or
 * 503 with Retry-After; no client may see an as_of go back; the counts must still equal the chain;
 * and reads must reach blocks made after the fault by themselves. The recovery times are printed.
 * Last, with the chain held still, the data read models are rebuilt from Kafka (their markers
 * deleted) and every answer must equal what the projections had made through the faults.
 */

/** Asserted: generous for a loaded 2-core machine (session timeout, leader election, client retries). */
const RECOVERY_BOUND_MS = 180_000;
/** A seeded dev account with transfers (deploy/devnet's native seed). */
const ALICE = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";
/** Blocks past the chain's head at the kill that must reach Kafka and the API. */
const BLOCKS_AFTER_KILL = 3;

const state = tempDir("e2e-failover");
const logger = createLogger({ service: "e2e-kafka-failover", level: "silent" });
let stack: RunningStack;
let api: DataApi;
let runtime: RuntimeReads;
let kafka: Kafka;
let admin: Admin;
let stats: StatsFollower;

beforeAll(async () => {
  const startedAt = Date.now();
  const start = async () =>
    startStack({
      stateDir: state.path,
      ports: await freePorts(),
      detached: false,
      runtime: testRuntime(),
      progress: silentProgress,
      simulator: false,
      nativeNetwork: true,
      kafkaNodes: 3,
      redisCluster: true,
    });
  // A free port can be taken by another process before the service binds it: one more try, for that cause only.
  stack = await start().catch((error: Error) => {
    if (!/EADDRINUSE/.test(error.message)) throw error;
    return start();
  });
  console.info(`stack on three Kafka nodes and a Redis Cluster ready in ${Date.now() - startedAt} ms`);
  api = await dataApi(stack, "e2e-kafka-failover");
  runtime = await connectRuntime(stack.descriptor.substrate!.rpcUrl);
  const superUser = stack.descriptor.kafkaAdmin!;
  kafka = createKafkaClient({
    brokers: stack.descriptor.infrastructure.kafkaBrokers,
    clientId: "e2e-kafka-failover",
    logger,
    credentials: superUser,
    // The test's own clients ride out the failover as the services do, only longer.
    retry: { retries: 30 },
  });
  admin = kafka.admin();
  await admin.connect();
  stats = await followNetworkStats(kafka);
}, 600_000);

afterAll(async () => {
  await stats?.stop().catch(() => undefined);
  await admin?.disconnect().catch(() => undefined);
  await runtime?.close().catch(() => undefined);
  await stack?.stop();
  state.remove();
}, 180_000);

describe("kill -9 of the Kafka partition leader during ingestion", () => {
  it("ingestion and projection resume by themselves; no block is lost or applied twice", async () => {
    expect(stack.kafkaCluster?.nodes).toHaveLength(3);
    await waitFor(async () => stats.blocks.length >= 3, {
      what: "3 blocks' network totals in Kafka",
      timeoutMs: 120_000,
    });
    const partition = stats.blocks[0]!.partition;
    const leader = await leaderOf(partition);

    const headAtKill = await chainHead();
    const killedAt = Date.now();
    await stack.kafkaCluster!.kill(leader, "SIGKILL");
    const target = headAtKill + BLOCKS_AFTER_KILL;

    const inKafka = await waitFor(async () => stats.blocks.find((block) => block.number >= target), {
      what: `block ${target}'s network totals in Kafka after node ${leader} was killed`,
      timeoutMs: RECOVERY_BOUND_MS,
      intervalMs: 100,
    });
    const inApi = await waitFor(
      async () => {
        const answer = await api.get("/data/v1/network/stats/latest");
        return answer.status === 200 && Number(answer.body.as_of.block_number) >= target ? Date.now() : undefined;
      },
      { what: `the API's network stats at block ${target}`, timeoutMs: RECOVERY_BOUND_MS, intervalMs: 200 },
    );
    const newLeader = await leaderOf(partition);
    console.info(
      `node ${leader} (leader of ${TOPICS.chainNetwork.name}/${partition}) killed at chain head ${headAtKill}; ` +
        `block ${target} in Kafka after ${inKafka.seenAt - killedAt} ms, in the API after ${inApi - killedAt} ms; ` +
        `new leader node ${newLeader}`,
    );
    expect(newLeader).not.toBe(leader);
    expect(inKafka.seenAt - killedAt).toBeLessThan(RECOVERY_BOUND_MS);
    expect(inApi - killedAt).toBeLessThan(RECOVERY_BOUND_MS);

    const restartedAt = Date.now();
    await stack.kafkaCluster!.restart(leader);
    console.info(`node ${leader} restarted and registered in ${Date.now() - restartedAt} ms`);

    // The read model against the chain, through as_of: every block counted once.
    const asOf = await expectCountsEqualChain();

    // Kafka, read afresh once the cluster is whole: one snapshot per block, contiguous, none twice,
    // through the API's as_of at least.
    let afterwards = await readStatsThrough(asOf);
    if (!contiguous(afterwards)) {
      // Seen once in CI (a read_committed kafkajs consumer started just after the node's restart
      // skipped one committed block that the projector, live and in the later rebuild, had read):
      // print the raw log around the gap, then read again. A gap in the second read fails the test.
      console.warn(
        `a fresh read_committed read of ${TOPICS.chainNetwork.name} skipped blocks: ${gapsOf(afterwards).join(", ")}; raw log around them:\n` +
          (await rawLogAround(partitionOf(afterwards), afterwards)).join("\n"),
      );
      afterwards = await readStatsThrough(asOf);
    }
    const numbers = afterwards.map((block) => block.number);
    const first = numbers[0]!;
    const last = numbers.at(-1)!;
    expect(numbers).toEqual(Array.from({ length: last - first + 1 }, (_, index) => first + index));
    expect(first).toBeLessThanOrEqual(headAtKill - 3);
    expect(afterwards.every((block) => block.partition === partition)).toBe(true);

    // The consumer that lived through the failover, for the record: what it missed or got twice.
    const live = stats.blocks.filter((block) => block.number <= last).map((block) => `${block.number}@${block.offset}`);
    const fresh = afterwards.map((block) => `${block.number}@${block.offset}`);
    const missed = fresh.filter((entry) => !live.includes(entry));
    const twice = live.filter((entry, index) => live.indexOf(entry) !== index);
    console.info(
      `the consumer group that lived through the failover: ${missed.length === 0 ? "missed nothing" : `missed ${missed.join(", ")}`}; ` +
        `${twice.length === 0 ? "nothing twice" : `twice ${twice.join(", ")}`} (block@offset)`,
    );
  }, 900_000);
});

describe("the Redis primary of the data read models, while clients read", () => {
  // One route over each data read model: market, subnets, accounts.
  const PATHS = [
    "/data/v1/network/stats/latest",
    "/data/v1/subnets/latest",
    `/data/v1/accounts/${ALICE}/balance/latest`,
  ];
  const CLIENTS = 3;
  const DATA_KEY = "rm:{data}:changes";

  it("partitioned (SIGSTOP past cluster-node-timeout, then SIGCONT): answers 200 or 503, no as_of goes back, nothing lost or doubled", async () => {
    const cluster = stack.redisCluster!;
    const primary = await cluster.primaryOf(DATA_KEY);
    const readers = startAsOfReaders({ api, paths: PATHS, clients: CLIENTS });
    try {
      await readers.until((reading) => reading.status === 200, `answers before the partition`);
      const headAtFault = await chainHead();
      const faultAt = Date.now();
      cluster.pause(primary.port);
      let promoted: number;
      try {
        // Past cluster-node-timeout (2 s) and the replica's election: another primary serves {data}.
        promoted = await waitFor(
          async () => {
            const port = await primaryPort(DATA_KEY);
            return port !== undefined && port !== primary.port ? port : undefined;
          },
          {
            what: `a replica promoted in place of paused node ${primary.port}`,
            timeoutMs: RECOVERY_BOUND_MS,
            intervalMs: 250,
          },
        );
      } finally {
        cluster.resume(primary.port);
      }
      // The resumed node learns it was replaced and follows the new primary (until then it may
      // still call itself primary: the next test must find the real one).
      await waitFor(
        async () =>
          (await primaryPort(DATA_KEY)) === promoted &&
          (await cluster.members()).some((member) => member.port === primary.port && member.role === "replica"),
        { what: `node ${primary.port} a replica of ${promoted}`, timeoutMs: RECOVERY_BOUND_MS, intervalMs: 250 },
      );
      const recovered = await readers.allPast(headAtFault + BLOCKS_AFTER_KILL, RECOVERY_BOUND_MS);
      console.info(
        `redis node ${primary.port} paused at chain head ${headAtFault}, resumed after node ${promoted} was promoted; ` +
          `every route past block ${headAtFault + BLOCKS_AFTER_KILL} after ${recovered - faultAt} ms`,
      );
    } finally {
      await readers.stop();
    }
    readers.expectNoStepBack();
    await cluster.waitUntilOk(RECOVERY_BOUND_MS);
    await expectCountsEqualChain();
  }, 900_000);

  it("killed (SIGKILL): answers 200 or 503, no as_of goes back, nothing lost or doubled, service resumes after the promotion", async () => {
    const cluster = stack.redisCluster!;
    // The node the partition test promoted; its replica is the node it replaced, in sync again.
    const primary = await cluster.primaryOf(DATA_KEY);
    const readers = startAsOfReaders({ api, paths: PATHS, clients: CLIENTS });
    try {
      await readers.until((reading) => reading.status === 200, `answers before the kill`);
      const headAtFault = await chainHead();
      const faultAt = Date.now();
      await cluster.kill(primary.port, "SIGKILL");
      const promoted = await waitFor(
        async () => {
          const port = await primaryPort(DATA_KEY);
          return port !== primary.port ? Date.now() : undefined;
        },
        { what: `a replica promoted in place of killed node ${primary.port}`, timeoutMs: RECOVERY_BOUND_MS },
      );
      const recovered = await readers.allPast(headAtFault + BLOCKS_AFTER_KILL, RECOVERY_BOUND_MS);
      console.info(
        `redis node ${primary.port} killed at chain head ${headAtFault}; replica promoted after ${promoted - faultAt} ms; ` +
          `every route past block ${headAtFault + BLOCKS_AFTER_KILL} after ${recovered - faultAt} ms`,
      );
    } finally {
      await readers.stop();
    }
    readers.expectNoStepBack();
    await expectCountsEqualChain();
  }, 900_000);

  it("afterwards, each data read model equals its rebuild from Kafka", async () => {
    // The chain held still, so the read models stand at one block while they are rebuilt.
    await nodeRpc("dev_pauseBlockTimer");
    const cluster = stack.redisCluster!;
    const admin = createRedis({
      mode: "cluster",
      nodes: cluster.nodeList.split(","),
      username: "admin",
      password: decodeURIComponent(new URL(redisAdminUrl(stack.descriptor)).password),
      connectionName: "e2e-rebuild",
    });
    try {
      await waitFor(() => redisReadiness(admin), { what: "admin cluster client ready", timeoutMs: 30_000 });
      const head = await chainHead();
      const atHead = async () => {
        const answers = await Promise.all(PATHS.map((path) => api.get(path)));
        return answers.every((answer) => answer.status === 200 && Number(answer.body.as_of.block_number) === head)
          ? answers.map((answer) => answer.body)
          : undefined;
      };
      const projected = await waitFor(atHead, { what: `every route at block ${head}`, timeoutMs: RECOVERY_BOUND_MS });
      // Without its marker a projection replays its topics from offset 0 into a fresh generation
      // and switches over once caught up (libs/bus projectionConsumer, the supervisor).
      const markers = [marketKeys.marker, subnetsKeys.marker, accountsKeys.marker];
      await admin.del(...markers);
      // Absent now: each says `complete` again only once its projection has replayed its topics.
      await waitFor(async () => (await admin.mget(...markers)).every((value) => value === "complete"), {
        what: "every data projection rebuilt (its marker complete again)",
        timeoutMs: RECOVERY_BOUND_MS,
        intervalMs: 250,
      });
      const rebuilt = await waitFor(atHead, {
        what: `every route rebuilt at block ${head}`,
        timeoutMs: RECOVERY_BOUND_MS,
        intervalMs: 250,
      });
      expect(rebuilt).toEqual(projected);
    } finally {
      admin.disconnect();
      await nodeRpc("dev_resumeBlockTimer");
    }
  }, 900_000);
});

/** The port of the primary serving `key`'s slot, as a live node of the cluster says; undefined while it cannot tell. */
async function primaryPort(key: string): Promise<number | undefined> {
  try {
    return (await stack.redisCluster!.primaryOf(key)).port;
  } catch {
    return undefined;
  }
}

/** The network stats' counts against the chain's blocks through the answer's as_of; returns that as_of. */
async function expectCountsEqualChain(): Promise<number> {
  const body = await waitFor(
    async () => {
      const answer = await api.get("/data/v1/network/stats/latest");
      return answer.status === 200 ? answer.body : undefined;
    },
    { what: "network stats answered 200", timeoutMs: RECOVERY_BOUND_MS },
  );
  const asOf = Number(body.as_of.block_number);
  let extrinsics = 0;
  let transfers = 0;
  for (let number = body.counted_since_block as number; number <= asOf; number++) {
    const block = await runtime.block(number);
    extrinsics += block.extrinsicHashes.length;
    transfers += block.events.filter((event) => event.name === "Balances.Transfer").length;
  }
  expect({ extrinsics: body.extrinsics_count, transfers: body.transfers_count }).toEqual({ extrinsics, transfers });
  return asOf;
}

interface SeenBlock {
  number: number;
  partition: number;
  offset: string;
  seenAt: number;
}

interface StatsFollower {
  /** NetworkStatsSnapshot records in the order a read_committed consumer got them. */
  blocks: SeenBlock[];
  stop(): Promise<void>;
}

/** A read_committed consumer of chain.network.v1 from its start, keeping each network-totals record's block. */
async function followNetworkStats(client: Kafka): Promise<StatsFollower> {
  const blocks: SeenBlock[] = [];
  const consumer = client.consumer({ groupId: `e2e-kafka-failover-${Date.now()}`, readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPICS.chainNetwork.name, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      if (message.headers?.["event-type"]?.toString() !== "NetworkStatsSnapshot" || message.value === null) return;
      const event = TOPICS.chainNetwork.codec.decode(message.value).event;
      if (event?.$case !== "networkStatsSnapshot") return;
      blocks.push({
        number: Number(event.value.ref?.blockNumber),
        partition,
        offset: message.offset,
        seenAt: Date.now(),
      });
    },
  });
  return { blocks, stop: () => consumer.disconnect() };
}

async function leaderOf(partition: number): Promise<number> {
  const metadata = await admin.fetchTopicMetadata({ topics: [TOPICS.chainNetwork.name] });
  const leader = metadata.topics[0]?.partitions.find((entry) => entry.partitionId === partition)?.leader;
  if (leader === undefined) throw new Error(`no leader of ${TOPICS.chainNetwork.name}/${partition}`);
  return leader;
}

/** A JSON-RPC call to the stack's Subtensor node. */
function nodeRpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
  return rpcRequest<T>(stack.descriptor.substrate!.httpUrl, method, params);
}

/** The chain's best block number, as its node reports it. */
async function chainHead(): Promise<number> {
  return Number.parseInt((await nodeRpc<{ number: string }>("chain_getHeader")).number, 16);
}

/** A fresh read_committed read of the network totals from the topic's start through block `through`. */
async function readStatsThrough(through: number): Promise<SeenBlock[]> {
  const reader = await followNetworkStats(kafka);
  try {
    await waitFor(async () => reader.blocks.some((block) => block.number >= through), {
      what: `block ${through}'s network totals in Kafka, read from the start`,
      timeoutMs: 120_000,
    });
  } finally {
    await reader.stop();
  }
  return reader.blocks;
}

function contiguous(blocks: readonly SeenBlock[]): boolean {
  return blocks.every((block, index) => index === 0 || block.number === blocks[index - 1]!.number + 1);
}

/** Where the block numbers jump or repeat, as `after→next`. */
function gapsOf(blocks: readonly SeenBlock[]): string[] {
  return blocks.flatMap((block, index) => {
    const previous = blocks[index - 1];
    return previous === undefined || block.number === previous.number + 1 ? [] : [`${previous.number}→${block.number}`];
  });
}

function partitionOf(blocks: readonly SeenBlock[]): number {
  return blocks[0]?.partition ?? 0;
}

/** The partition's records (aborted and control ones too) between the offsets around the first gap, one line each. */
async function rawLogAround(partition: number, blocks: readonly SeenBlock[]): Promise<string[]> {
  const gapAt = blocks.findIndex((block, index) => index > 0 && block.number !== blocks[index - 1]!.number + 1);
  const from = BigInt(blocks[Math.max(0, gapAt - 1)]?.offset ?? "0");
  const to = BigInt(blocks[gapAt]?.offset ?? "0");
  const lines: string[] = [];
  const consumer = kafka.consumer({ groupId: `e2e-kafka-failover-raw-${Date.now()}`, readUncommitted: true });
  try {
    await consumer.connect();
    await consumer.subscribe({ topic: TOPICS.chainNetwork.name, fromBeginning: true });
    let done = false;
    await consumer.run({
      eachBatch: async ({ batch }) => {
        if (batch.partition !== partition) return;
        for (const message of batch.messages) {
          const offset = BigInt(message.offset);
          if (offset > to) done = true;
          if (offset < from || offset > to) continue;
          const type = message.headers?.["event-type"]?.toString() ?? "?";
          lines.push(`${message.offset} ${type} ${JSON.stringify(message.key?.toString() ?? null)}`);
        }
      },
    });
    await waitFor(async () => done, { what: "the raw log around the gap", timeoutMs: 60_000 }).catch(() => undefined);
  } finally {
    await consumer.disconnect().catch(() => undefined);
  }
  return lines;
}
