import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createKafkaClient, createPublisher, type Kafka, type ProjectionBatch, type Publisher } from "@platform/bus";
import { type HistoryDb, historyTables } from "@platform/history";
import { type HistoryServer, startHistoryServer } from "@platform/history/testing";
import { createLogger, type Logger } from "@platform/log";
import { type ChainRef, Finality } from "@platform/proto/common/v1/common";
import type { IntentsChainEvent } from "@platform/proto/events/v1/chain_intents";
import { type IntentNotificationEvent, TxOutcome } from "@platform/proto/events/v1/intents_notifications";
import { IntentRecord, IntentStatus } from "@platform/proto/intents/v1/intents";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import { intentsChangeLog, intentsKeys } from "@platform/read-models";
import type { Signals } from "@platform/signals";
import { createRedis, type Redis } from "@platform/store";
import { type RunningKafka, type RunningRedis, startKafka, startRedis, tempDir, waitFor } from "@platform/testing";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IntentsHistoryMirror, startIntentsHistoryMirror } from "./historyMirror.js";
import { type IntentsSupervisor, superviseIntentsProjection } from "./intentsSupervisor.js";
import { intentsProjection } from "./projection.js";

/*
 * The intents projection against one real Kafka broker and a real Redis: events published as the
 * ingestor and the intents-gateway publish them, read back through the documented key layout; and
 * its orders' durable copy, mirrored into a real PostgreSQL from the change log (historyMirror.ts).
 * Order ids, users and transactions are generated per test, so tests share the topics safely.
 */

const dir = tempDir("projector-intents");
const log: Logger = createLogger({
  service: "projector-test",
  level: process.env.PROJECTOR_TEST_LOG === "debug" ? "debug" : "warn",
  destination:
    process.env.PROJECTOR_TEST_LOG === "debug"
      ? (process.stderr as unknown as Writable)
      : new Writable({ write: (_chunk, _encoding, callback) => callback() }),
});
const ORIGIN = "31337";
const DESTINATION = "31338";
/** The process's registry, as main.ts hands it to every projection. */
const registry = new Registry();

/** A sample of the registry's text output, as a scraper reads it; undefined when absent. */
async function scrape(line: string): Promise<number | undefined> {
  const found = (await registry.metrics()).split("\n").find((entry) => entry.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}
const GRACE = 60;

let kafkaServer: RunningKafka;
let redisServer: RunningRedis;
let historyServer: HistoryServer;
let historyReader: HistoryDb;
let mirrorRedis: Redis;
let mirror: IntentsHistoryMirror;
let kafka: Kafka;
let redis: Redis;
let projectionRedis: Redis;
let publisher: Publisher;
let supervisor: IntentsSupervisor;
const signals: { subject: string; payload: unknown }[] = [];
const fakeSignals: Signals = {
  publish: (subject, payload) => (signals.push({ subject, payload }), true),
  subscribe: () => () => undefined,
  ready: async () => true,
  close: async () => undefined,
};

beforeAll(async () => {
  [kafkaServer, redisServer, historyServer] = await Promise.all([
    startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") }),
    startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
    startHistoryServer({ dataDir: join(dir.path, "postgres") }),
  ]);
  historyReader = historyServer.connect("data_query");
  mirrorRedis = createRedis({ url: redisServer.url, connectionName: "projector-test-mirror" });
  mirror = startIntentsHistoryMirror({
    redis: mirrorRedis,
    history: historyServer.connect("projector"),
    log,
    blockMs: 100,
  });
  kafka = createKafkaClient({ brokers: kafkaServer.brokers, clientId: "projector-test", logger: log });
  redis = createRedis({ url: redisServer.url, connectionName: "projector-test" });
  projectionRedis = createRedis({
    url: redisServer.url,
    connectionName: "projector-test-projection",
    commandTimeoutMs: 10_000,
  });
  supervisor = superviseIntentsProjection({
    kafka,
    redis,
    projectionRedis,
    signals: fakeSignals,
    log,
    refundGraceSeconds: GRACE,
    replicationFactor: 1,
    intervalMs: 300,
    registry,
  });
  await waitFor(() => supervisor.check.probe(), { what: "intents projection running", timeoutMs: 60_000 });
  publisher = await createPublisher(kafka);
}, 120_000);

afterAll(async () => {
  await mirror?.stop();
  mirrorRedis?.disconnect();
  await supervisor?.stop();
  await publisher?.disconnect().catch(() => undefined);
  redis?.disconnect();
  projectionRedis?.disconnect();
  await Promise.all([kafkaServer?.stop(), redisServer?.stop(), historyServer?.stop()]);
  dir.remove();
}, 60_000);

const hex = (bytes: number) => `0x${randomBytes(bytes).toString("hex")}`;
const checksum = (address: string) => address; // addresses below are made of digits only, so already EIP-55

let nextBlock = 100;
function ref(chainId: string, txHash: string, logIndex = 0, block = nextBlock++): ChainRef {
  return {
    chainId,
    blockNumber: String(block),
    blockHash: hex(32),
    parentHash: hex(32),
    blockTimestamp: new Date((1_900_000_000 + block) * 1_000).toISOString(),
    txHash,
    txIndex: 0,
    logIndex,
    finality: Finality.FINALITY_LATEST,
  };
}

const bytes32 = (address: string) => `0x${"0".repeat(24)}${address.slice(2).toLowerCase()}`;
const newUser = () => checksum(`0x${Array.from({ length: 40 }, () => Math.floor(Math.random() * 10)).join("")}`);

function opened(orderId: string, user: string, at: ChainRef, fillDeadline: number): IntentsChainEvent {
  return {
    event: {
      $case: "orderOpened",
      value: {
        ref: at,
        orderId,
        settler: "0x0000000000000000000000000000000000000C01",
        txFrom: user,
        resolvedOrder: {
          user,
          originChainId: ORIGIN,
          openDeadline: 4_294_967_295,
          fillDeadline,
          orderId,
          maxSpent: [{ token: `0x${"0".repeat(64)}`, amount: "990", recipient: bytes32(user), chainId: DESTINATION }],
          minReceived: [
            { token: `0x${"0".repeat(64)}`, amount: "1000", recipient: `0x${"0".repeat(64)}`, chainId: ORIGIN },
          ],
          fillInstructions: [
            {
              destinationChainId: DESTINATION,
              destinationSettler: bytes32("0x0000000000000000000000000000000000000C02"),
              originData: "0x",
            },
          ],
        },
      },
    },
  };
}

const FILLER = "0x00000000000000000000000000000000000000F1";
const filled = (orderId: string, at: ChainRef): IntentsChainEvent => ({
  event: {
    $case: "orderFilled",
    value: {
      ref: at,
      orderId,
      settler: "0x0000000000000000000000000000000000000C02",
      filler: FILLER,
      recipient: "0x",
      outputToken: "0x",
      outputAmount: "990",
      repaymentAddress: "0x",
    },
  },
});
const settled = (orderId: string, at: ChainRef): IntentsChainEvent => ({
  event: {
    $case: "orderSettled",
    value: {
      ref: at,
      orderId,
      settler: "0x0000000000000000000000000000000000000C01",
      filler: FILLER,
      inputToken: "0x",
      inputAmount: "1000",
    },
  },
});
const refunded = (orderId: string, user: string, at: ChainRef): IntentsChainEvent => ({
  event: {
    $case: "orderRefunded",
    value: {
      ref: at,
      orderId,
      settler: "0x0000000000000000000000000000000000000C01",
      user,
      inputToken: "0x",
      inputAmount: "1000",
    },
  },
});
const removal = (orderId: string, event: IntentsChainEvent): IntentsChainEvent => ({
  event: {
    $case: "chainEventRemoved",
    value: {
      removed: (event.event!.value as { ref: ChainRef }).ref,
      removedEventId: "id",
      removedEventType: eventTypeOf(event),
      key: orderId,
      commonAncestorBlockNumber: "1",
      commonAncestorBlockHash: hex(32),
      detectedAt: new Date().toISOString(),
    },
  },
});
let headBlock = 1_000;
const head = (chainId: string, seconds: number, safe?: number, finalized?: number): IntentsChainEvent => ({
  event: {
    $case: "chainHeadAdvanced",
    value: {
      head: {
        chainId,
        blockNumber: String(headBlock++),
        blockHash: hex(32),
        parentHash: hex(32),
        blockTimestamp: new Date(seconds * 1_000).toISOString(),
        finality: Finality.FINALITY_LATEST,
      },
      ...(safe === undefined ? {} : { safeBlockNumber: String(safe) }),
      ...(finalized === undefined ? {} : { finalizedBlockNumber: String(finalized) }),
    },
  },
});

async function publishChain(key: string, ...events: IntentsChainEvent[]): Promise<void> {
  await publisher.publish(
    events.map((payload) => ({
      topic: TOPICS.chainIntents.name,
      key,
      value: encodePayload(TOPICS.chainIntents, payload),
      eventType: eventTypeOf(payload),
      schema: TOPICS.chainIntents.schema,
    })),
  );
}

async function publishNotification(txHash: string, payload: IntentNotificationEvent): Promise<void> {
  await publisher.publish([
    {
      topic: TOPICS.intentsNotifications.name,
      key: `${ORIGIN}:${txHash}`,
      value: encodePayload(TOPICS.intentsNotifications, payload),
      eventType: eventTypeOf(payload),
      schema: TOPICS.intentsNotifications.schema,
    },
  ]);
}

async function projectionRedisFor(name: string): Promise<Redis> {
  const connection = createRedis({
    url: redisServer.url,
    connectionName: `projector-test-${name}`,
    commandTimeoutMs: 10_000,
  });
  await waitFor(async () => connection.status === "ready", { what: `${name} connection` });
  return connection;
}

/** The connection, whose commit script (EVALSHA) first runs `before`: a write landing between a transaction's reads and its commit. */
function interceptCommit(connection: Redis, before: () => Promise<void>): { redis: Redis; commits: () => number } {
  let commits = 0;
  const redisWithHook = new Proxy(connection, {
    get(target, property, receiver) {
      if (property === "evalsha") {
        return async (...args: unknown[]) => {
          commits += 1;
          await before();
          return (target.evalsha as (...values: unknown[]) => Promise<unknown>)(...args);
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? (value as (...values: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { redis: redisWithHook, commits: () => commits };
}

/** A batch handed to the projection directly (not through Kafka), on a partition of its own. */
function directBatch(
  partition: number,
  previousOffset: string | undefined,
  events: [key: string, payload: IntentsChainEvent][],
): ProjectionBatch {
  const first = previousOffset === undefined ? 0 : Number(previousOffset) + 1;
  const messages = events.map(([key, payload], index) => ({
    topic: TOPICS.chainIntents.name,
    partition,
    offset: String(first + index),
    timestamp: String(Date.now()),
    key,
    value: Buffer.from(encodePayload(TOPICS.chainIntents, payload)),
    eventId: undefined,
    eventType: eventTypeOf(payload),
    schema: TOPICS.chainIntents.schema,
    traceparent: undefined,
    tracestate: undefined,
    headers: {},
  }));
  return {
    topic: TOPICS.chainIntents.name,
    partition,
    messages,
    lastOffset: messages.at(-1)!.offset,
    previousOffset,
    heartbeat: async () => undefined,
  };
}

/** Waits until the projection applied everything both topics hold. */
async function caughtUp(): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const targets = (
      await Promise.all(
        [TOPICS.chainIntents.name, TOPICS.intentsNotifications.name].map(async (topic) =>
          (
            await admin.fetchTopicOffsets(topic)
          )
            .filter((entry) => BigInt(entry.high) > 0n)
            .map((entry) => ({ topic, partition: entry.partition, last: BigInt(entry.high) - 1n })),
        ),
      )
    ).flat();
    await waitFor(
      async () => {
        for (const target of targets) {
          const stored = await redis.get(intentsKeys.offset(target.topic, target.partition));
          if (stored === null || BigInt(stored) < target.last) return false;
        }
        return true;
      },
      { what: "projection caught up", timeoutMs: 30_000, intervalMs: 50 },
    );
  } finally {
    await admin.disconnect();
  }
}

async function record(suffix: string): Promise<IntentRecord | undefined> {
  const bytes = await redis.getBuffer(intentsKeys.order(suffix));
  return bytes === null ? undefined : IntentRecord.decode(bytes);
}

/** The change-log entries of one record key, oldest first (libs/read-models changeLogs.ts). */
async function changesOf(key: string): Promise<{ id: string; user: string; record: IntentRecord | undefined }[]> {
  const { fields } = intentsChangeLog;
  const entries = await redis.xrangeBuffer(intentsChangeLog.key, "-", "+");
  return entries
    .map(([id, flat]) => {
      const byName = new Map<string, Buffer>();
      for (let i = 0; i + 1 < flat.length; i += 2) byName.set(flat[i]!.toString(), flat[i + 1]!);
      const bytes = byName.get(fields.record)!;
      return {
        id: id.toString(),
        key: byName.get(fields.key)!.toString(),
        user: byName.get(fields.user)!.toString(),
        record: bytes.length === 0 ? undefined : IntentRecord.decode(bytes),
      };
    })
    .filter((change) => change.key === key)
    .map(({ key: _key, ...change }) => change);
}

describe("intents projection (Kafka → Redis): order lifecycle", () => {
  it("folds open → filled → settled into the record, the pending list and the heads", async () => {
    const orderId = hex(32);
    const user = newUser();
    const openTx = hex(32);
    await publishChain(orderId, opened(orderId, user, ref(ORIGIN, openTx), 2_000_000_000));
    await publishChain(`head:${DESTINATION}`, head(DESTINATION, 1_900_000_000, 10, 5));
    await caughtUp();
    expect(await record(orderId)).toMatchObject({
      orderId,
      status: IntentStatus.INTENT_STATUS_OPEN,
      userAddress: user,
      originTxHash: openTx,
      destinationChainId: DESTINATION,
    });
    expect(await redis.zscore(intentsKeys.pending(user), orderId)).not.toBeNull();
    expect(await redis.smembers(intentsKeys.tx(ORIGIN, openTx))).toEqual([orderId]);
    expect(await redis.hgetall(intentsKeys.head(DESTINATION))).toMatchObject({
      timestamp: new Date(1_900_000_000_000).toISOString(),
      safeBlockNumber: "10",
      finalizedBlockNumber: "5",
    });
    // The mirror's as_of per chain, as the projector exports it.
    const headNumber = Number(await redis.hget(intentsKeys.head(DESTINATION), "blockNumber"));
    expect(await scrape(`read_model_as_of_block{read_model="intents:${DESTINATION}"}`)).toBe(headNumber);
    expect(await scrape(`read_model_as_of_timestamp_seconds{read_model="intents:${DESTINATION}"}`)).toBe(1_900_000_000);

    await publishChain(orderId, filled(orderId, ref(DESTINATION, hex(32))));
    await caughtUp();
    expect((await record(orderId))?.status).toBe(IntentStatus.INTENT_STATUS_FILLED);
    await publishChain(orderId, settled(orderId, ref(ORIGIN, hex(32))));
    await caughtUp();
    const final = (await record(orderId))!;
    expect(final).toMatchObject({ status: IntentStatus.INTENT_STATUS_SETTLED, isFinal: true, filler: FILLER });
    expect(final.updatedAt).not.toBe("");
    expect(await redis.zscore(intentsKeys.pending(user), orderId)).toBeNull();
    // Every commit that changed the record left an entry in the change log, in order, with the
    // record as that commit wrote it.
    expect((await changesOf(orderId)).map((change) => [change.user, change.record?.status])).toEqual([
      [user, IntentStatus.INTENT_STATUS_OPEN],
      [user, IntentStatus.INTENT_STATUS_FILLED],
      [user, IntentStatus.INTENT_STATUS_SETTLED],
    ]);
    expect((await changesOf(orderId)).at(-1)!.record).toEqual(final);
    // PostgreSQL holds the order as Redis does, and its status history in commit order.
    await waitFor(
      async () =>
        (
          await historyReader.unsafe(`select status from ${historyTables.intentOrders} where order_key = $1`, [orderId])
        )[0]?.status === IntentStatus.INTENT_STATUS_SETTLED,
      { what: "the settled order in PostgreSQL", timeoutMs: 30_000 },
    );
    const [stored] = await historyReader.unsafe(
      `select user_address, record from ${historyTables.intentOrders} where order_key = $1`,
      [orderId],
    );
    expect(stored?.user_address).toBe(user);
    expect(IntentRecord.decode(stored?.record as Buffer)).toEqual(final);
    const history = await historyReader.unsafe(
      `select status, status_changed from ${historyTables.intentOrderChanges} where order_key = $1 order by change_ms, change_seq`,
      [orderId],
    );
    expect(history.map((row) => [row.status, row.status_changed])).toEqual([
      [IntentStatus.INTENT_STATUS_OPEN, true],
      [IntentStatus.INTENT_STATUS_FILLED, true],
      [IntentStatus.INTENT_STATUS_SETTLED, true],
    ]);
    expect(
      signals.some(
        (signal) =>
          signal.subject === "readmodel.changed.intents" &&
          (signal.payload as { orderKeys: string[] }).orderKeys.includes(orderId),
      ),
    ).toBe(true);
  });

  it("expires an open order when the destination head passes its deadline, lists it, and a refund takes it off", async () => {
    const orderId = hex(32);
    const user = newUser();
    const deadline = 1_950_000_000;
    await publishChain(`head:${DESTINATION}`, head(DESTINATION, deadline - 100));
    await publishChain(orderId, opened(orderId, user, ref(ORIGIN, hex(32)), deadline));
    await caughtUp();
    expect((await record(orderId))?.status).toBe(IntentStatus.INTENT_STATUS_OPEN);
    expect(await redis.zscore(intentsKeys.deadlines(DESTINATION), orderId)).toBe(String(deadline));

    await publishChain(`head:${DESTINATION}`, head(DESTINATION, deadline));
    await caughtUp();
    expect((await record(orderId))?.status).toBe(IntentStatus.INTENT_STATUS_OPEN);
    await publishChain(`head:${DESTINATION}`, head(DESTINATION, deadline + 1));
    await caughtUp();
    const expired = (await record(orderId))!;
    expect(expired).toMatchObject({
      status: IntentStatus.INTENT_STATUS_EXPIRED,
      refundableAt: new Date((deadline + GRACE) * 1_000).toISOString(),
    });
    expect(await redis.zscore(intentsKeys.expired(user), orderId)).toBe(String(deadline));
    expect(await redis.zscore(intentsKeys.pending(user), orderId)).not.toBeNull();

    // A reorganisation moving the destination's head back before the deadline un-expires it.
    await publishChain(`head:${DESTINATION}`, head(DESTINATION, deadline - 5));
    await caughtUp();
    expect((await record(orderId))?.status).toBe(IntentStatus.INTENT_STATUS_OPEN);
    expect(await redis.zscore(intentsKeys.expired(user), orderId)).toBeNull();
    await publishChain(`head:${DESTINATION}`, head(DESTINATION, deadline + 10));
    await caughtUp();
    expect((await record(orderId))?.status).toBe(IntentStatus.INTENT_STATUS_EXPIRED);

    await publishChain(orderId, refunded(orderId, user, ref(ORIGIN, hex(32))));
    await caughtUp();
    expect(await record(orderId)).toMatchObject({ status: IntentStatus.INTENT_STATUS_REFUNDED, isFinal: true });
    expect(await redis.zscore(intentsKeys.expired(user), orderId)).toBeNull();
    expect(await redis.zscore(intentsKeys.pending(user), orderId)).toBeNull();
    expect(await redis.zscore(intentsKeys.deadlines(DESTINATION), orderId)).toBeNull();
    await publishChain(`head:${DESTINATION}`, head(DESTINATION, 1_900_000_000));
    await caughtUp();
  });
});

describe("intents projection (Kafka → Redis): removed events and finality", () => {
  it("takes removed events back out: a removed Filled returns to OPEN, a removed Open leaves every read", async () => {
    const orderId = hex(32);
    const user = newUser();
    const openTx = hex(32);
    const open = opened(orderId, user, ref(ORIGIN, openTx), 2_000_000_000);
    const fill = filled(orderId, ref(DESTINATION, hex(32)));
    await publishChain(orderId, open, fill);
    await caughtUp();
    expect((await record(orderId))?.status).toBe(IntentStatus.INTENT_STATUS_FILLED);

    await publishChain(orderId, removal(orderId, fill));
    await caughtUp();
    expect((await record(orderId))?.status).toBe(IntentStatus.INTENT_STATUS_OPEN);
    expect((await record(orderId))?.filled).toBeUndefined();

    await publishChain(orderId, removal(orderId, open));
    await caughtUp();
    expect(await record(orderId)).toBeUndefined();
    // The removal is in the change log too: an entry without a record.
    expect((await changesOf(orderId)).map((change) => change.record?.status ?? "removed")).toEqual([
      IntentStatus.INTENT_STATUS_FILLED,
      IntentStatus.INTENT_STATUS_OPEN,
      "removed",
    ]);
    expect(await redis.zscore(intentsKeys.pending(user), orderId)).toBeNull();
    expect(await redis.zscore(intentsKeys.deadlines(DESTINATION), orderId)).toBeNull();
    expect(await redis.zscore(intentsKeys.unsafe(ORIGIN), orderId)).toBeNull();
    expect(await redis.smembers(intentsKeys.tx(ORIGIN, openTx))).toEqual([]);
  });

  it("raises finality as the heads' safe and finalized numbers reach each step", async () => {
    const orderId = hex(32);
    const at = ref(ORIGIN, hex(32), 0, 5_000);
    await publishChain(orderId, opened(orderId, newUser(), at, 2_000_000_000));
    await caughtUp();
    expect((await record(orderId))?.opened?.finality).toBe(Finality.FINALITY_LATEST);
    expect(await redis.zscore(intentsKeys.unsafe(ORIGIN), orderId)).toBe("5000");
    await publishChain(`head:${ORIGIN}`, head(ORIGIN, 1_900_000_000, 5_000, 4_999));
    await caughtUp();
    expect((await record(orderId))?.opened?.finality).toBe(Finality.FINALITY_SAFE);
    expect(await redis.zscore(intentsKeys.unsafe(ORIGIN), orderId)).toBeNull();
    await publishChain(`head:${ORIGIN}`, head(ORIGIN, 1_900_000_001, 5_001, 5_000));
    await caughtUp();
    expect((await record(orderId))?.opened?.finality).toBe(Finality.FINALITY_FINALIZED);
    expect(await redis.zscore(intentsKeys.unfinalized(ORIGIN), orderId)).toBeNull();
  });
});

describe("intents projection (Kafka → Redis): notified transactions", () => {
  it("shows a notified transaction as SUBMITTED until its Open is seen, then links the order; a reverted one is final", async () => {
    const user = newUser();
    const openTx = hex(32);
    const notifiedAt = "2030-01-01T00:00:00.000Z";
    const notify = (txHash: string, orderId?: string): IntentNotificationEvent => ({
      event: {
        $case: "intentNotified",
        value: {
          originChainId: ORIGIN,
          txHash,
          userAddress: user,
          notifiedAt,
          apiKeyId: "k1",
          tcVersion: 1,
          ...(orderId ? { orderId } : {}),
        },
      },
    });
    await publishNotification(openTx, notify(openTx));
    await caughtUp();
    const suffix = `tx:${ORIGIN}:${openTx}`;
    expect(await record(suffix)).toMatchObject({
      orderId: "",
      status: IntentStatus.INTENT_STATUS_SUBMITTED,
      userAddress: user,
      notifiedAt,
    });
    expect(await redis.hgetall(intentsKeys.txState(ORIGIN, openTx))).toMatchObject({
      status: "NOTIFIED",
      userAddress: user,
      notifiedAt,
    });
    expect(await redis.zscore(intentsKeys.pending(user), suffix)).toBe(String(Date.parse(notifiedAt)));

    const orderId = hex(32);
    await publishNotification(openTx, {
      event: {
        $case: "notifiedTxResolved",
        value: {
          originChainId: ORIGIN,
          txHash: openTx,
          outcome: TxOutcome.TX_OUTCOME_SUCCEEDED,
          orderIds: [orderId],
          resolvedAt: notifiedAt,
        },
      },
    });
    await publishChain(orderId, opened(orderId, user, ref(ORIGIN, openTx), 2_000_000_000));
    await caughtUp();
    expect(await record(suffix)).toBeUndefined();
    expect(await record(orderId)).toMatchObject({ status: IntentStatus.INTENT_STATUS_OPEN, notifiedAt });
    expect(await redis.smembers(intentsKeys.tx(ORIGIN, openTx))).toEqual([orderId]);
    expect(await redis.hget(intentsKeys.txState(ORIGIN, openTx), "status")).toBe("SUCCEEDED");
    expect(await redis.zscore(intentsKeys.pending(user), suffix)).toBeNull();
    expect(await redis.zscore(intentsKeys.pending(user), orderId)).toBe(String(Date.parse(notifiedAt)));

    // Notified with its order id, then reverted: the record lives at the order id, final.
    const revertTx = hex(32);
    const namedOrder = hex(32);
    await publishNotification(revertTx, notify(revertTx, namedOrder));
    await caughtUp();
    expect(await record(namedOrder)).toMatchObject({
      orderId: namedOrder,
      status: IntentStatus.INTENT_STATUS_SUBMITTED,
    });
    expect(await record(`tx:${ORIGIN}:${revertTx}`)).toMatchObject({
      orderId: namedOrder,
      status: IntentStatus.INTENT_STATUS_SUBMITTED,
    });
    expect(await redis.smembers(intentsKeys.tx(ORIGIN, revertTx))).toEqual([]);
    expect(await redis.zscore(intentsKeys.pending(user), namedOrder)).not.toBeNull();
    expect(await redis.zscore(intentsKeys.pending(user), `tx:${ORIGIN}:${revertTx}`)).toBeNull();
    await publishNotification(revertTx, {
      event: {
        $case: "notifiedTxResolved",
        value: {
          originChainId: ORIGIN,
          txHash: revertTx,
          outcome: TxOutcome.TX_OUTCOME_REVERTED,
          orderIds: [],
          resolvedAt: notifiedAt,
        },
      },
    });
    await caughtUp();
    expect(await record(namedOrder)).toMatchObject({ status: IntentStatus.INTENT_STATUS_REVERTED, isFinal: true });
    expect((await record(`tx:${ORIGIN}:${revertTx}`))?.status).toBe(IntentStatus.INTENT_STATUS_REVERTED);
    expect(await redis.hget(intentsKeys.txState(ORIGIN, revertTx), "status")).toBe("REVERTED");
    expect(await redis.zscore(intentsKeys.pending(user), namedOrder)).toBeNull();

    // Not mined in its window: DROPPED, still pending.
    const droppedTx = hex(32);
    await publishNotification(droppedTx, notify(droppedTx));
    await publishNotification(droppedTx, {
      event: {
        $case: "notifiedTxResolved",
        value: {
          originChainId: ORIGIN,
          txHash: droppedTx,
          outcome: TxOutcome.TX_OUTCOME_DROPPED,
          orderIds: [],
          resolvedAt: notifiedAt,
        },
      },
    });
    await caughtUp();
    expect((await record(`tx:${ORIGIN}:${droppedTx}`))?.status).toBe(IntentStatus.INTENT_STATUS_DROPPED);
    expect(await redis.zscore(intentsKeys.pending(user), `tx:${ORIGIN}:${droppedTx}`)).not.toBeNull();
  });
});

describe("intents projection (Kafka → Redis): claims by others than the sender", () => {
  it("drops a squatter's claim once the mined transaction's sender is known, and the sender's later claim wins", async () => {
    const squatter = newUser();
    const sender = newUser();
    const txHash = hex(32);
    const orderId = hex(32);
    const claim = (userAddress: string, notifiedAt: string): IntentNotificationEvent => ({
      event: {
        $case: "intentNotified",
        value: { originChainId: ORIGIN, txHash, userAddress, notifiedAt, apiKeyId: "k-squat", tcVersion: 1 },
      },
    });
    const suffix = `tx:${ORIGIN}:${txHash}`;
    // The squatter is first: before the transaction is mined, its claim is what shows.
    await publishNotification(txHash, claim(squatter, "2030-01-01T00:00:00.000Z"));
    await publishNotification(txHash, claim(sender, "2030-01-01T00:00:01.000Z"));
    await caughtUp();
    expect(await record(suffix)).toMatchObject({ status: IntentStatus.INTENT_STATUS_SUBMITTED, userAddress: squatter });
    // Mined: the receipt names the sender, whose claim (the second) now wins; the squatter's is off every list.
    await publishNotification(txHash, {
      event: {
        $case: "notifiedTxResolved",
        value: {
          originChainId: ORIGIN,
          txHash,
          outcome: TxOutcome.TX_OUTCOME_SUCCEEDED,
          orderIds: [orderId],
          txFrom: sender,
          resolvedAt: "2030-01-01T00:00:05.000Z",
        },
      },
    });
    await publishChain(orderId, opened(orderId, sender, ref(ORIGIN, txHash), 2_000_000_000));
    await caughtUp();
    expect(await record(orderId)).toMatchObject({
      status: IntentStatus.INTENT_STATUS_OPEN,
      userAddress: sender,
      notifiedAt: "2030-01-01T00:00:01.000Z",
    });
    expect(await redis.hgetall(intentsKeys.txState(ORIGIN, txHash))).toMatchObject({
      status: "SUCCEEDED",
      userAddress: sender,
      txFrom: sender,
      rejectedClaims: squatter,
    });
    expect(await redis.zscore(intentsKeys.pending(squatter), suffix)).toBeNull();
    expect(await redis.zcard(intentsKeys.pending(squatter))).toBe(0);

    // A claim on a transaction already mined: a stranger's is rejected at once, the sender's wins even when it comes last.
    const minedTx = hex(32);
    const stranger = newUser();
    await publishNotification(minedTx, {
      event: {
        $case: "notifiedTxResolved",
        value: {
          originChainId: ORIGIN,
          txHash: minedTx,
          outcome: TxOutcome.TX_OUTCOME_REVERTED,
          orderIds: [],
          txFrom: sender,
          resolvedAt: "2030-01-01T00:00:05.000Z",
        },
      },
    });
    await publishNotification(minedTx, {
      event: {
        $case: "intentNotified",
        value: {
          originChainId: ORIGIN,
          txHash: minedTx,
          userAddress: stranger,
          notifiedAt: "2030-01-01T00:00:06.000Z",
          apiKeyId: "k-squat",
          tcVersion: 1,
        },
      },
    });
    await caughtUp();
    expect(await record(`tx:${ORIGIN}:${minedTx}`)).toBeUndefined();
    expect(await redis.zcard(intentsKeys.pending(stranger))).toBe(0);
    await publishNotification(minedTx, {
      event: {
        $case: "intentNotified",
        value: {
          originChainId: ORIGIN,
          txHash: minedTx,
          userAddress: sender,
          notifiedAt: "2030-01-01T00:00:07.000Z",
          apiKeyId: "k",
          tcVersion: 1,
        },
      },
    });
    await caughtUp();
    expect(await record(`tx:${ORIGIN}:${minedTx}`)).toMatchObject({
      status: IntentStatus.INTENT_STATUS_REVERTED,
      userAddress: sender,
      notifiedAt: "2030-01-01T00:00:07.000Z",
    });
  });
});

describe("intents projection (Kafka → Redis): applying each batch once", () => {
  it("applies a batch once: a replay of an applied batch is refused, a republished event changes nothing", async () => {
    const orderId = hex(32);
    const open = opened(orderId, newUser(), ref(ORIGIN, hex(32)), 2_000_000_000);
    await publishChain(orderId, open);
    await caughtUp();
    const before = await redis.getBuffer(intentsKeys.order(orderId));
    await publishChain(orderId, open);
    await caughtUp();
    expect((await redis.getBuffer(intentsKeys.order(orderId)))?.equals(before!)).toBe(true);

    // A second projection instance replaying an old batch: its previous offset is no longer the stored one.
    const replayRedis = createRedis({ url: redisServer.url, connectionName: "replay" });
    await waitFor(async () => replayRedis.status === "ready", { what: "replay connection" });
    const replay = intentsProjection({ redis: replayRedis, log, refundGraceSeconds: GRACE });
    let partition = 0;
    while ((await redis.get(intentsKeys.offset(TOPICS.chainIntents.name, partition))) === null) partition += 1;
    const batch: ProjectionBatch = {
      topic: TOPICS.chainIntents.name,
      partition,
      messages: [],
      lastOffset: "0",
      previousOffset: undefined,
      heartbeat: async () => undefined,
    };
    await expect(replay.handleBatch(batch)).rejects.toThrow(/stored offset/);
    replayRedis.disconnect();
  });

  it("commits atomically against the stored offset: an offset moved between the reads and the commit rejects the batch, writing nothing", async () => {
    const orderId = hex(32);
    // A partition no consumer owns, so only this test moves its offset.
    const partition = 90;
    const offsetKey = intentsKeys.offset(TOPICS.chainIntents.name, partition);
    await redis.set(offsetKey, "4");
    // Another member commits the partition after this projection read its offset, before its commit.
    const interfering = interceptCommit(
      await projectionRedisFor("stale-offset"),
      async () => void (await redis.set(offsetKey, "5")),
    );
    const projection = intentsProjection({ redis: interfering.redis, log, refundGraceSeconds: GRACE });
    const batch = directBatch(partition, "4", [
      [orderId, opened(orderId, newUser(), ref(ORIGIN, hex(32)), 2_000_000_000)],
    ]);
    await expect(projection.handleBatch(batch)).rejects.toThrow(
      /stored offset of chain.intents.v1\/90 is 5, the batch continues from 4/,
    );
    expect(interfering.commits()).toBe(1);
    expect(await redis.get(offsetKey)).toBe("5");
    expect(await record(orderId)).toBeUndefined();
    expect(await redis.exists(intentsKeys.events(orderId))).toBe(0);
    interfering.redis.disconnect();
  });

  it("applies a batch again on fresh reads when another partition's batch changed one of its orders meanwhile", async () => {
    const orderId = hex(32);
    const user = newUser();
    const otherRedis = await projectionRedisFor("other-partition");
    const other = intentsProjection({ redis: otherRedis, log, refundGraceSeconds: GRACE });
    // The Open is applied by partition 91; the Fill of the same order by partition 92 lands between its reads and its commit.
    const fill = directBatch(92, undefined, [[orderId, filled(orderId, ref(DESTINATION, hex(32)))]]);
    let interfered = false;
    const interfering = interceptCommit(await projectionRedisFor("conflicted"), async () => {
      if (interfered) return;
      interfered = true;
      await other.handleBatch(fill);
    });
    const projection = intentsProjection({ redis: interfering.redis, log, refundGraceSeconds: GRACE });
    await projection.handleBatch(
      directBatch(91, undefined, [[orderId, opened(orderId, user, ref(ORIGIN, hex(32)), 2_000_000_000)]]),
    );
    // The first commit was refused (its order's keys had moved), the second applied the Open on top of the Fill.
    expect(interfering.commits()).toBe(2);
    expect(await record(orderId)).toMatchObject({ status: IntentStatus.INTENT_STATUS_FILLED, userAddress: user });
    expect(await redis.get(intentsKeys.offset(TOPICS.chainIntents.name, 91))).toBe("0");
    expect(await redis.get(intentsKeys.offset(TOPICS.chainIntents.name, 92))).toBe("0");
    interfering.redis.disconnect();
    otherRedis.disconnect();
  });
});

describe("intents projection (Kafka → Redis): backlogs and the rebuild", () => {
  it("projects a backlog of 10,000 Opens with their heads (figure printed)", async () => {
    const count = 10_000;
    const user = newUser();
    const orderIds = Array.from({ length: count }, () => hex(32));
    const records = orderIds.map((orderId) => {
      const payload = opened(orderId, user, ref(ORIGIN, hex(32)), 2_000_000_000);
      return {
        topic: TOPICS.chainIntents.name,
        key: orderId,
        value: encodePayload(TOPICS.chainIntents, payload),
        eventType: "OrderOpened",
        schema: TOPICS.chainIntents.schema,
      };
    });
    const started = performance.now();
    for (let start = 0; start < records.length; start += 500)
      await publisher.publish(records.slice(start, start + 500));
    await publishChain(`head:${ORIGIN}`, head(ORIGIN, 1_900_000_100, nextBlock, nextBlock - 2));
    await caughtUp();
    const seconds = (performance.now() - started) / 1_000;
    console.info(
      `intents projection: ${count} Opens (and the head that makes them final) published and applied in ${seconds.toFixed(2)} s: ${Math.round(count / seconds)} events/s`,
    );
    expect(await redis.zcard(intentsKeys.pending(user))).toBe(count);
    const sample = await record(orderIds[count - 1]!);
    expect(sample?.status).toBe(IntentStatus.INTENT_STATUS_OPEN);
  }, 120_000);

  it("expires 1,200 orders sharing a deadline at one head step, and un-expires them when the head moves back", async () => {
    const user = newUser();
    const deadline = 1_960_000_000;
    const orderIds = Array.from({ length: 1_200 }, () => hex(32));
    await publisher.publish(
      orderIds.map((orderId) => {
        const payload = opened(orderId, user, ref(ORIGIN, hex(32)), deadline);
        return {
          topic: TOPICS.chainIntents.name,
          key: orderId,
          value: encodePayload(TOPICS.chainIntents, payload),
          eventType: "OrderOpened",
          schema: TOPICS.chainIntents.schema,
        };
      }),
    );
    await publishChain(`head:${DESTINATION}`, head(DESTINATION, deadline - 1));
    await caughtUp();
    expect(await redis.zcard(intentsKeys.expired(user))).toBe(0);
    await publishChain(`head:${DESTINATION}`, head(DESTINATION, deadline + 1));
    await caughtUp();
    expect(await redis.zcard(intentsKeys.expired(user))).toBe(orderIds.length);
    expect((await record(orderIds[700]!))?.status).toBe(IntentStatus.INTENT_STATUS_EXPIRED);
    await publishChain(`head:${DESTINATION}`, head(DESTINATION, deadline - 3));
    await caughtUp();
    expect(await redis.zcard(intentsKeys.expired(user))).toBe(0);
    expect((await record(orderIds[1_100]!))?.status).toBe(IntentStatus.INTENT_STATUS_OPEN);
    await publishChain(`head:${DESTINATION}`, head(DESTINATION, 1_900_000_000));
    await caughtUp();
  });

  it("rebuilds the read model from the topics after Redis lost it", async () => {
    const orderId = hex(32);
    const user = newUser();
    await publishChain(
      orderId,
      opened(orderId, user, ref(ORIGIN, hex(32)), 2_000_000_000),
      filled(orderId, ref(DESTINATION, hex(32))),
    );
    await caughtUp();
    const before = await record(orderId);
    await redis.flushall();
    await waitFor(async () => (await record(orderId))?.status === IntentStatus.INTENT_STATUS_FILLED, {
      what: "rebuilt record",
      timeoutMs: 30_000,
    });
    await caughtUp();
    expect(await record(orderId)).toMatchObject({
      orderId,
      status: before?.status,
      userAddress: user,
      opened: before?.opened,
      filled: before?.filled,
    });
    expect(await redis.zscore(intentsKeys.pending(user), orderId)).not.toBeNull();
  });
});
