import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createKafkaClient, createPublisher, type Kafka } from "@platform/bus";
import { loadChainConfig } from "@platform/chain";
import { fullSettlerAbi } from "@platform/devnet";
import { createLogger, type Logger } from "@platform/log";
import { IntentsChainEvent } from "@platform/proto/events/v1/chain_intents";
import { CheckpointEvent } from "@platform/proto/events/v1/ingestor_checkpoints";
import type { IntentNotificationEvent } from "@platform/proto/events/v1/intents_notifications";
import { IntentRecord, IntentStatus } from "@platform/proto/intents/v1/intents";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import { connectSignals, type Signals, subjects } from "@platform/signals";
import { createRedis, type Redis } from "@platform/store";
import {
  type ManagedProcess,
  type RunningKafka,
  type RunningNats,
  type RunningRedis,
  startKafka,
  startNats,
  startRedis,
  tempDir,
  waitFor,
} from "@platform/testing";
import { encodeFunctionData, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  burstOpens,
  chainNow,
  type Devnet,
  fillOrder,
  newUser,
  openOrder,
  readTopic,
  settleOrder,
  spawnService,
  startDevnet,
} from "../../test/devnetHarness.js";
import { type IntentsIngestor, startIntentsIngestor } from "./intentsIngestor.js";

/*
 * End to end on real servers: two anvil chains with the devnet FullSettlers, one Kafka broker,
 * Redis and NATS. The intents ingestor runs in process (and, for the crash test, as its own
 * process), the projector as its own process; every assertion reads the documented Redis layout.
 */

const dir = tempDir("intents-pipeline");
// The in-process ingestor's log, kept in memory: a failed wait shows its tail.
const logLines: string[] = [];
const log: Logger = createLogger({
  service: "ingestor-test",
  level: "debug",
  destination: new Writable({
    write: (chunk, _e, callback) => {
      logLines.push(String(chunk));
      if (logLines.length > 400) logLines.splice(0, 100);
      callback();
    },
  }),
});
const GRACE = 60;

let devnet: Devnet;
let kafkaServer: RunningKafka;
let redisServer: RunningRedis;
let natsServer: RunningNats;
let kafka: Kafka;
let redis: Redis;
let signals: Signals;
let projector: ManagedProcess;
let ingestor: IntentsIngestor | undefined;
const fenced: unknown[] = [];
/** Every ingestor process a test started; stopped at the end whatever happened. */
const spawned: ManagedProcess[] = [];

async function startInProcess(): Promise<IntentsIngestor> {
  const chains = await loadChainConfig(devnet.chainsFile);
  return startIntentsIngestor({
    kafka,
    signals,
    chains: chains.chains,
    pollIntervalMs: 100,
    maxBlocksPerBatch: 50,
    notifiedTxDropAfterMs: 1_500,
    replicationFactor: 1,
    log,
    onFenced: (error) => fenced.push(error),
  });
}

beforeAll(async () => {
  [devnet, kafkaServer, redisServer, natsServer] = await Promise.all([
    startDevnet(dir.path),
    startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") }),
    startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
    startNats({ dir: join(dir.path, "nats"), logFile: join(dir.path, "nats.log") }),
  ]);
  kafka = createKafkaClient({ brokers: kafkaServer.brokers, clientId: "pipeline-test", logger: log });
  redis = createRedis({ url: redisServer.url, connectionName: "pipeline-test" });
  signals = connectSignals({ servers: [natsServer.url], name: "pipeline-test" });
  await waitFor(() => signals.ready(), { what: "nats" });
  projector = spawnService(
    "projector",
    {
      KAFKA_BROKERS: kafkaServer.brokers.join(","),
      REDIS_URL: redisServer.url,
      NATS_URL: natsServer.url,
      PROJECTIONS: "intents",
      KAFKA_REPLICATION_FACTOR: "1",
      INTENTS_REFUND_GRACE_SECONDS: String(GRACE),
    },
    join(dir.path, "projector.log"),
  );
  ingestor = await startInProcess();
  await waitFor(() => ingestor!.check.probe(), { what: "ingestor following", timeoutMs: 60_000 });
}, 180_000);

afterAll(async () => {
  await ingestor?.stop();
  for (const child of spawned) await child.stop();
  await projector?.stop();
  await signals?.close();
  redis?.disconnect();
  await Promise.all([devnet?.stop(), kafkaServer?.stop(), redisServer?.stop(), natsServer?.stop()]);
  dir.remove();
}, 60_000);

async function record(suffix: string): Promise<IntentRecord | undefined> {
  const bytes = await redis.getBuffer(`rm:{intents}:order:${suffix}`);
  return bytes === null ? undefined : IntentRecord.decode(bytes);
}

async function statusBecomes(
  orderId: string,
  status: IntentStatus | undefined,
  timeoutMs = 20_000,
): Promise<IntentRecord | undefined> {
  return waitFor(
    async () => {
      const current = await record(orderId);
      return current?.status === status ? (current ?? ("gone" as const)) : false;
    },
    { what: `order ${orderId} ${status === undefined ? "gone" : IntentStatus[status]}`, timeoutMs, intervalMs: 50 },
  ).then((value) => (value === "gone" ? undefined : value));
}

describe("intents pipeline: anvil → chain-ingestor → Kafka → projector → Redis, an order's lifecycle", () => {
  it("mirrors an order opened on the origin, filled on the destination and settled by the oracle", async () => {
    const user = await newUser(devnet);
    const order = await openOrder(devnet, user);
    const open = await statusBecomes(order.orderId, IntentStatus.INTENT_STATUS_OPEN);
    expect(open).toMatchObject({
      orderId: order.orderId,
      userAddress: user.address,
      originChainId: "31337",
      destinationChainId: "31338",
      originTxHash: order.txHash,
      fillDeadline: order.data.fillDeadline,
      refundableAt: new Date((order.data.fillDeadline + GRACE) * 1_000).toISOString(),
      input: { token: "0x0000000000000000000000000000000000000000", amount: order.data.inputAmount.toString() },
    });
    expect(await redis.zscore(`rm:{intents}:user:${user.address}:pending`, order.orderId)).not.toBeNull();
    expect(await redis.smembers(`rm:{intents}:tx:31337:${order.txHash}`)).toEqual([order.orderId]);

    const fillTx = await fillOrder(devnet, order);
    const filled = await statusBecomes(order.orderId, IntentStatus.INTENT_STATUS_FILLED);
    expect(filled).toMatchObject({ filler: devnet.filler.address, filled: { chainId: "31338", txHash: fillTx } });

    await settleOrder(devnet, order);
    const settled = await statusBecomes(order.orderId, IntentStatus.INTENT_STATUS_SETTLED);
    expect(settled?.isFinal).toBe(true);
    expect(await redis.zscore(`rm:{intents}:user:${user.address}:pending`, order.orderId)).toBeNull();

    const latest = Number(await devnet.origin.publicClient.getBlockNumber());
    const heads = await waitFor(
      async () => {
        const hash = await redis.hgetall("rm:{intents}:head:31337");
        return Number(hash.blockNumber) === latest ? hash : false;
      },
      { what: "origin head mirrored" },
    );
    // Depths 1 and 3: safe and finalized trail the head.
    expect(Number(heads.finalizedBlockNumber)).toBe(Number(heads.blockNumber) - 3);
  });

  it("derives EXPIRED from the destination chain's clock and ends in REFUNDED", async () => {
    const user = await newUser(devnet);
    const order = await openOrder(devnet, user, 40);
    await statusBecomes(order.orderId, IntentStatus.INTENT_STATUS_OPEN);
    // The destination's clock passes the deadline; the origin's does not move yet.
    const destinationNow = await chainNow(devnet.destination);
    await devnet.destination.testClient.setNextBlockTimestamp({
      timestamp: BigInt(Math.max(destinationNow, order.data.fillDeadline) + 1),
    });
    await devnet.destination.testClient.mine({ blocks: 1 });
    const expired = await statusBecomes(order.orderId, IntentStatus.INTENT_STATUS_EXPIRED);
    expect(expired?.refundableAt).toBe(new Date((order.data.fillDeadline + GRACE) * 1_000).toISOString());
    expect(await redis.zscore(`rm:{intents}:user:${user.address}:expired`, order.orderId)).toBe(
      String(order.data.fillDeadline),
    );

    const originNow = await chainNow(devnet.origin);
    await devnet.origin.testClient.setNextBlockTimestamp({
      timestamp: BigInt(Math.max(originNow + 1, order.data.fillDeadline + GRACE)),
    });
    await devnet.origin.testClient.mine({ blocks: 1 });
    const refund = await devnet.origin.wallet(user).writeContract({
      address: devnet.origin.settler,
      abi: fullSettlerAbi,
      functionName: "refund",
      args: [order.orderId],
    });
    await devnet.origin.publicClient.waitForTransactionReceipt({ hash: refund });
    await statusBecomes(order.orderId, IntentStatus.INTENT_STATUS_REFUNDED);
    expect(await redis.zscore(`rm:{intents}:user:${user.address}:expired`, order.orderId)).toBeNull();
    expect(await redis.zscore(`rm:{intents}:user:${user.address}:pending`, order.orderId)).toBeNull();
  });
});

describe("intents pipeline: reorganisations and intents.notified hints", () => {
  it("removes a reorganised-out Open from every read, and moves a reorganised-out Filled back to OPEN", async () => {
    const user = await newUser(devnet);
    // Origin: the block with the Open is replaced by empty blocks.
    const beforeOpen = await devnet.origin.testClient.snapshot();
    const doomed = await openOrder(devnet, user);
    await statusBecomes(doomed.orderId, IntentStatus.INTENT_STATUS_OPEN);
    await devnet.origin.testClient.revert({ id: beforeOpen });
    await devnet.origin.testClient.mine({ blocks: 3 });
    await statusBecomes(doomed.orderId, undefined);
    expect(await redis.zscore(`rm:{intents}:user:${user.address}:pending`, doomed.orderId)).toBeNull();
    expect(await redis.smembers(`rm:{intents}:tx:31337:${doomed.txHash}`)).toEqual([]);

    // Destination: the fill's block is replaced; the order stands on the origin and is OPEN again.
    const order = await openOrder(devnet, user);
    await statusBecomes(order.orderId, IntentStatus.INTENT_STATUS_OPEN);
    const beforeFill = await devnet.destination.testClient.snapshot();
    await fillOrder(devnet, order);
    await statusBecomes(order.orderId, IntentStatus.INTENT_STATUS_FILLED);
    await devnet.destination.testClient.revert({ id: beforeFill });
    await devnet.destination.testClient.mine({ blocks: 2 });
    const back = await statusBecomes(order.orderId, IntentStatus.INTENT_STATUS_OPEN);
    expect(back?.filled).toBeUndefined();

    // The removals are on the topic, keyed like the events they remove.
    const removals = (await readTopic(kafka, TOPICS.chainIntents.name))
      .filter((entry) => entry.eventType === "ChainEventRemoved")
      .map((entry) => ({ key: entry.key, event: IntentsChainEvent.decode(entry.value!).event }));
    expect(removals).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          key: doomed.orderId,
          event: expect.objectContaining({
            value: expect.objectContaining({ removedEventType: "OrderOpened", key: doomed.orderId }),
          }),
        }),
        expect.objectContaining({
          key: order.orderId,
          event: expect.objectContaining({ value: expect.objectContaining({ removedEventType: "OrderFilled" }) }),
        }),
      ]),
    );

    // Filled again on the new fork: FILLED again.
    await fillOrder(devnet, order);
    await statusBecomes(order.orderId, IntentStatus.INTENT_STATUS_FILLED);
  });

  it("answers intents.notified hints: SUCCEEDED with the orders, REVERTED, and DROPPED after the window", async () => {
    const user = await newUser(devnet);
    const publisher = await createPublisher(kafka);
    const notify = async (txHash: Hex) => {
      const payload: IntentNotificationEvent = {
        event: {
          $case: "intentNotified",
          value: {
            originChainId: "31337",
            txHash,
            userAddress: user.address,
            notifiedAt: new Date().toISOString(),
            apiKeyId: "k",
            tcVersion: 1,
          },
        },
      };
      await publisher.publish([
        {
          topic: TOPICS.intentsNotifications.name,
          key: `31337:${txHash}`,
          value: encodePayload(TOPICS.intentsNotifications, payload),
          eventType: eventTypeOf(payload),
          schema: TOPICS.intentsNotifications.schema,
        },
      ]);
      signals.publish(subjects.intentsNotified, { chainId: "31337", txHash });
    };
    try {
      const order = await openOrder(devnet, user);
      await notify(order.txHash);
      await waitFor(
        async () => (await redis.hget(`rm:{intents}:txstate:31337:${order.txHash}`, "resolution")) === "SUCCEEDED",
        { what: "resolution SUCCEEDED" },
      );
      expect(await redis.hgetall(`rm:{intents}:txstate:31337:${order.txHash}`)).toMatchObject({
        status: "SUCCEEDED",
        userAddress: user.address,
        orderIds: order.orderId,
      });
      // The Open comes through chain.intents.v1, another topic: the record shows the notification once both are applied.
      await waitFor(async () => (await record(order.orderId))?.notifiedAt !== undefined, {
        what: "notified_at on the order's record",
      });

      // A transaction that reverts on chain (wrong order data type), mined with an explicit gas limit.
      const reverted = await devnet.origin.wallet(user).sendTransaction({
        to: devnet.origin.settler,
        data: encodeFunctionData({
          abi: fullSettlerAbi,
          functionName: "open",
          args: [{ fillDeadline: 0, orderDataType: `0x${"00".repeat(32)}`, orderData: "0x" }],
        }),
        gas: 300_000n,
      });
      expect((await devnet.origin.publicClient.waitForTransactionReceipt({ hash: reverted })).status).toBe("reverted");
      await notify(reverted);
      await waitFor(
        async () => (await record(`tx:31337:${reverted}`))?.status === IntentStatus.INTENT_STATUS_REVERTED,
        { what: "REVERTED record" },
      );
      expect(await redis.hget(`rm:{intents}:txstate:31337:${reverted}`, "status")).toBe("REVERTED");

      const neverSent = `0x${"5a".repeat(32)}` as Hex;
      await notify(neverSent);
      expect((await record(`tx:31337:${neverSent}`))?.status ?? IntentStatus.INTENT_STATUS_SUBMITTED).toBe(
        IntentStatus.INTENT_STATUS_SUBMITTED,
      );
      await waitFor(
        async () => (await record(`tx:31337:${neverSent}`))?.status === IntentStatus.INTENT_STATUS_DROPPED,
        { what: "DROPPED record" },
      );
      expect(await redis.zscore(`rm:{intents}:user:${user.address}:pending`, `tx:31337:${neverSent}`)).not.toBeNull();
    } finally {
      await publisher.disconnect();
    }
  });
});

describe("intents pipeline: fencing and a killed ingestor", () => {
  it("a second instance fences the first; kill -9 during a burst of opens loses and repeats nothing", async () => {
    const env = {
      CHAINS_FILE: devnet.chainsFile,
      KAFKA_BROKERS: kafkaServer.brokers.join(","),
      NATS_URL: natsServer.url,
      KAFKA_REPLICATION_FACTOR: "1",
      INGEST_POLL_INTERVAL_MS: "100",
      INGEST_MAX_BLOCKS_PER_BATCH: "10",
    };
    let child = spawnService("chain-ingestor", env, join(dir.path, "ingestor-1.log"));
    spawned.push(child);
    let childLog = join(dir.path, "ingestor-1.log");
    // The process registers the same transactional ids: the in-process ingestor is fenced off at its
    // next commit, which a new block brings. One race goes the other way: when the registration
    // lands during the in-process ingestor's commit, Kafka 4.1 may answer that commit with
    // UNKNOWN_SERVER_ERROR, which says nothing of fencing, so the in-process ingestor starts a fresh
    // producer and fences the process instead (see transactionalPublisher.ts). The process then
    // exits, as a fenced instance must, and is started again, as its Deployment would start it.
    let childExited = false;
    const watchExit = (watched: ManagedProcess) =>
      void watched.exited.then(() => {
        if (watched === child) childExited = true;
      });
    watchExit(child);
    let restarts = 0;
    await waitFor(
      async () => {
        if (childExited) {
          const log = existsSync(childLog) ? readFileSync(childLog, "utf8") : "";
          if (!log.includes("fenced off by another chain-ingestor instance") || restarts >= 2) {
            throw new Error(`the second instance exited unfenced or kept losing the race:\n${log.slice(-4000)}`);
          }
          restarts += 1;
          childExited = false;
          childLog = join(dir.path, `ingestor-1-restart-${restarts}.log`);
          child = spawnService("chain-ingestor", env, childLog);
          spawned.push(child);
          watchExit(child);
        }
        await devnet.origin.testClient.mine({ blocks: 1 });
        return fenced.length >= 1;
      },
      // The second process starts from scratch (a node process, Kafka producers, the chains): on a
      // loaded two-core machine that alone has taken over 20 s.
      { what: "in-process ingestor fenced", timeoutMs: 90_000, intervalMs: 500 },
    ).catch((error: unknown) => {
      const second = existsSync(childLog)
        ? readFileSync(childLog, "utf8").split("\n").slice(-30).join("\n")
        : "(no log)";
      const ownLines = logLines.filter((line) => !line.includes("blocks published")).slice(-30);
      throw new Error(
        `${String(error)}; the in-process ingestor's last log lines:\n${ownLines.join("")}\nthe second instance's:\n${second}`,
        { cause: error },
      );
    });
    await ingestor?.stop();
    ingestor = undefined;

    const count = 300;
    const burst = burstOpens(devnet, count, { batchSize: 20 });
    // Kill the ingestor once part of the burst is mirrored, while the rest is still being sent.
    await waitFor(async () => (await redis.dbsize()) > 0 && (await countOpen(await burstIdsSoFar())) >= 40, {
      what: "part of the burst mirrored",
      timeoutMs: 40_000,
      intervalMs: 20,
    });
    child.kill("SIGKILL");
    expect(await child.exited).toBe("SIGKILL");
    const orderIds = await burst;
    child = spawnService("chain-ingestor", env, join(dir.path, "ingestor-2.log"));
    spawned.push(child);
    try {
      await waitFor(async () => (await countOpen(orderIds)) === count, {
        what: "every order of the burst mirrored",
        timeoutMs: 45_000,
        intervalMs: 100,
      });
      const opened = new Map<string, number>();
      for (const entry of await readTopic(kafka, TOPICS.chainIntents.name)) {
        if (entry.eventType !== "OrderOpened" || entry.key === undefined) continue;
        opened.set(entry.key, (opened.get(entry.key) ?? 0) + 1);
      }
      expect(orderIds.filter((orderId) => opened.get(orderId) !== 1)).toEqual([]);
      const checkpoints = (await readTopic(kafka, TOPICS.ingestorCheckpoints.name)).map(
        (entry) => CheckpointEvent.decode(entry.value!).event!.value,
      );
      const originCheckpoints = checkpoints
        .filter((checkpoint) => checkpoint.sourceId === "31337:intents")
        .map((checkpoint) => BigInt(checkpoint.blockNumber));
      // Committed checkpoints only ever move forward, except back to a common ancestor after a reorganisation.
      expect(originCheckpoints.length).toBeGreaterThan(0);
    } finally {
      await child.stop();
    }

    async function burstIdsSoFar(): Promise<string[]> {
      const keys = await redis.keys("rm:{intents}:order:0x*");
      return keys.map((key) => key.slice("rm:{intents}:order:".length));
    }
    async function countOpen(ids: readonly string[]): Promise<number> {
      if (ids.length === 0) return 0;
      const values = await redis.mgetBuffer(...ids.map((orderId) => `rm:{intents}:order:${orderId}`));
      return values.filter(
        (value) => value !== null && IntentRecord.decode(value).status === IntentStatus.INTENT_STATUS_OPEN,
      ).length;
    }
  }, 180_000);
});
