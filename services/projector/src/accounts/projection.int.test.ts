import { randomBytes } from "node:crypto";
import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createKafkaClient, createPublisher, type Kafka, keysForEveryPartition, type Publisher } from "@platform/bus";
import type { HistoryDb } from "@platform/history";
import { type HistoryServer, startHistoryServer } from "@platform/history/testing";
import { createLogger, type Logger } from "@platform/log";
import { type ChainRef, Finality } from "@platform/proto/common/v1/common";
import { Direction, TransactionSource, TransactionType } from "@platform/proto/common/v1/network";
import { AccountActivity, AccountBalance, type NetworkChainEvent } from "@platform/proto/events/v1/chain_network";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import { accountsKeys } from "@platform/read-models";
import type { Signals } from "@platform/signals";
import { createRedis, type Redis } from "@platform/store";
import {
  type RunningKafka,
  type RunningPostgres,
  type RunningRedis,
  startKafka,
  startPostgres,
  startRedis,
  takeBaseBackup,
  tempDir,
  waitFor,
} from "@platform/testing";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProjectionSupervisor } from "../supervisor/projectionSupervisor.js";
import { startAccountsProjection } from "./index.js";
import { parsePointMember } from "./members.js";

/*
 * The accounts projection against one real Kafka broker and a real Redis, under the generic
 * supervisor: AccountActivity and ChainEventRemoved records published as the ingestor publishes
 * them (key = the account's public key), read back through the documented key layout. Accounts
 * are random per test, so tests share the topic safely.
 */

const dir = tempDir("projector-accounts");
const log: Logger = createLogger({
  service: "projector-test",
  level: "warn",
  destination: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
});

let kafkaServer: RunningKafka;
let historyServer: HistoryServer;
/** The server started again on a restored base backup (the restore test), stopped at the end. */
let restored: RunningPostgres | undefined;
/** What data-query may read: the projection writes through its own role (projector). */
let reader: HistoryDb;
let redisServer: RunningRedis;
let kafka: Kafka;
let redis: Redis;
let projectionRedis: Redis;
let publisher: Publisher;
let supervisor: ProjectionSupervisor;
/** What the projection announced (`readmodel.changed.accounts`), in order: recorded in process, not over NATS. */
const announced: unknown[] = [];
const signals: Signals = {
  publish: (subject, payload) => {
    if (subject === "readmodel.changed.accounts") announced.push(payload);
    return true;
  },
  subscribe: () => () => undefined,
  ready: async () => true,
  close: async () => undefined,
};
/** The process's registry, as main.ts hands it to every projection. */
const registry = new Registry();

/** A sample of the registry's text output, as a scraper reads it; undefined when absent. */
async function scrape(line: string): Promise<number | undefined> {
  const found = (await registry.metrics()).split("\n").find((entry) => entry.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

beforeAll(async () => {
  [kafkaServer, redisServer, historyServer] = await Promise.all([
    startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") }),
    startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
    startHistoryServer(),
  ]);
  reader = historyServer.connect("data_query");
  kafka = createKafkaClient({ brokers: kafkaServer.brokers, clientId: "projector-accounts-test", logger: log });
  redis = createRedis({ url: redisServer.url, connectionName: "projector-test" });
  projectionRedis = createRedis({
    url: redisServer.url,
    connectionName: "projector-test-accounts",
    commandTimeoutMs: 10_000,
  });
  supervisor = startAccountsProjection({
    kafka,
    redis,
    projectionRedis,
    history: historyServer.connect("projector"),
    signals,
    log,
    replicationFactor: 1,
    intervalMs: 300,
    registry,
  });
  await waitFor(() => supervisor.check.probe(), { what: "accounts projection running", timeoutMs: 60_000 });
  publisher = await createPublisher(kafka);
}, 120_000);

afterAll(async () => {
  await supervisor?.stop();
  await publisher?.disconnect().catch(() => undefined);
  redis?.disconnect();
  projectionRedis?.disconnect();
  await Promise.all([kafkaServer?.stop(), redisServer?.stop(), historyServer?.stop(), restored?.stop()]);
  dir.remove();
}, 60_000);

const hex = (bytes: number) => `0x${randomBytes(bytes).toString("hex")}`;
const T0 = 1_900_000_000;
let nextBlock = 1_000;
const hashes = new Map<number, string>();
const hashOf = (block: number) => hashes.get(block) ?? (hashes.set(block, hex(32)), hashes.get(block)!);

function ref(block: number, txIndex: number, logIndex?: number): ChainRef {
  return {
    chainId: "964",
    blockNumber: String(block),
    blockHash: hashOf(block),
    parentHash: hashOf(block - 1),
    blockTimestamp: new Date((T0 + block * 12) * 1_000).toISOString(),
    txHash: hex(32),
    txIndex,
    ...(logIndex === undefined ? {} : { logIndex }),
    finality: Finality.FINALITY_LATEST,
  };
}

const accountId = (publicKey: string) => ({ ss58: "5Fake", publicKey });

function activity(owner: string, at: ChainRef, free: string): NetworkChainEvent {
  return {
    event: {
      $case: "accountActivity",
      value: {
        ref: at,
        account: accountId(owner),
        activityId: `${at.blockNumber}-${at.txIndex}-${at.logIndex ?? 0}`,
        type: TransactionType.TRANSACTION_TYPE_TRANSFER,
        direction: Direction.DIRECTION_IN,
        success: true,
        from: accountId(hex(32)),
        to: accountId(owner),
        amountRao: "1000",
        source: TransactionSource.TRANSACTION_SOURCE_EVM_TX,
        balanceAfter: {
          freeRao: free,
          reservedRao: "0",
          frozenRao: "0",
          positions: [{ netuid: 0, hotkey: accountId(hex(32)), stakeNalpha: "5" }],
          rewards: [],
        },
      },
    },
  };
}

function removal(owner: string, at: ChainRef, ancestor: number): NetworkChainEvent {
  return {
    event: {
      $case: "chainEventRemoved",
      value: {
        removed: at,
        removedEventId: "x",
        removedEventType: "AccountActivity",
        key: owner,
        commonAncestorBlockNumber: String(ancestor),
        commonAncestorBlockHash: hashOf(ancestor),
        detectedAt: new Date().toISOString(),
      },
    },
  };
}

function blockRefOf(block: number): ChainRef {
  const { txHash: _txHash, txIndex: _txIndex, logIndex: _logIndex, ...blockRef } = ref(block, 0);
  return blockRef;
}

async function publish(key: string, events: NetworkChainEvent[]): Promise<void> {
  await publisher.publish(
    events.map((payload) => ({
      topic: TOPICS.chainNetwork.name,
      key,
      value: encodePayload(TOPICS.chainNetwork, payload),
      eventType: eventTypeOf(payload),
      schema: TOPICS.chainNetwork.schema,
    })),
  );
}

/** The ingestor's BlockSeen keys: one per partition of the topic. */
const PARTITIONS = TOPICS.chainNetwork.partitions;
const seenKeys = keysForEveryPartition("block-seen:", PARTITIONS);

/** A block's BlockSeen in the given partitions (all by default), as the ingestor publishes it after the block's records. */
async function seen(
  block: number,
  partitions: readonly number[] = seenKeys.map((_key, partition) => partition),
): Promise<void> {
  for (const partition of partitions)
    await publish(seenKeys[partition]!, [
      { event: { $case: "blockSeen", value: { ref: blockRefOf(block), partitions: PARTITIONS } } },
    ]);
}

/** The removal of a block's BlockSeen in every partition (a reorganisation). */
async function unseen(block: number, ancestor: number): Promise<void> {
  for (const key of seenKeys) {
    await publish(key, [
      {
        event: {
          $case: "chainEventRemoved",
          value: {
            removed: blockRefOf(block),
            removedEventId: "x",
            removedEventType: "BlockSeen",
            key,
            commonAncestorBlockNumber: String(ancestor),
            commonAncestorBlockHash: hashOf(ancestor),
            detectedAt: new Date().toISOString(),
          },
        },
      },
    ]);
  }
}

/** Waits until the projection applied everything the topic holds. */
async function caughtUp(): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const targets = (await admin.fetchTopicOffsets(TOPICS.chainNetwork.name))
      .filter((entry) => BigInt(entry.high) > 0n)
      .map((entry) => ({ partition: entry.partition, last: BigInt(entry.high) - 1n }));
    await waitFor(
      async () => {
        for (const target of targets) {
          const stored = await redis.get(accountsKeys.offset(TOPICS.chainNetwork.name, target.partition));
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

/** The account's transactions as PostgreSQL holds them (Redis keeps none once the history database does). */
const storedTransactions = async (owner: string) =>
  [
    ...(await reader`
    select member, score::text as score, detail from history.account_transactions
    where account = ${owner} order by score, member`),
  ].map((row) => ({ member: row.member as string, score: row.score as string, detail: row.detail as string }));
const positionsOf = async (owner: string) =>
  (await storedTransactions(owner)).map(({ member }) => member.split("|")[2]);
const latestFree = async (owner: string) => {
  const [top] = await redis.zrange(accountsKeys.points(owner), "-1", "-1");
  return top === undefined
    ? undefined
    : AccountBalance.decode(Buffer.from(parsePointMember(top)!.balance, "base64")).freeRao;
};

describe("accounts projection", () => {
  it("keeps the latest balance, the transactions in chain order and the head", async () => {
    const owner = hex(32);
    const [b1, b2] = [nextBlock++, nextBlock++];
    await publish(owner, [
      activity(owner, ref(b1, 0), "100"),
      activity(owner, ref(b1, 3, 7), "100"),
      activity(owner, ref(b2, 1, 2), "250"),
    ]);
    await seen(b1);
    await seen(b2);
    await caughtUp();
    expect(await positionsOf(owner)).toEqual([`${b1}-0-0`, `${b1}-3-7`, `${b2}-1-2`]);
    expect(await latestFree(owner)).toBe("250");
    const stored = (await storedTransactions(owner)).at(-1)!.detail;
    expect(AccountActivity.decode(Buffer.from(stored, "base64"))).toMatchObject({
      activityId: `${b2}-1-2`,
      amountRao: "1000",
      balanceAfter: undefined,
    });
    expect(await redis.hgetall(accountsKeys.head)).toMatchObject({
      chainId: "964",
      blockNumber: String(b2),
      blockHash: hashOf(b2),
    });
    // The read model's as_of and the projection's progress, as the projector exports them.
    await waitFor(async () => (await scrape('read_model_as_of_block{read_model="accounts"}')) === b2, {
      what: "as_of block exported",
      timeoutMs: 10_000,
    });
    expect(await scrape('read_model_as_of_timestamp_seconds{read_model="accounts"}')).toBe(T0 + b2 * 12);
    expect(await scrape('read_model_as_of_age_seconds{read_model="accounts"}')).toBeCloseTo(
      Date.now() / 1_000 - (T0 + b2 * 12),
      -1,
    );
    expect((await scrape('projection_records_applied_total{projection="accounts"}'))!).toBeGreaterThanOrEqual(3);
    await waitFor(
      async () =>
        (await scrape(`projection_consumer_lag_records{projection="accounts",topic="${TOPICS.chainNetwork.name}"}`)) ===
        0,
      { what: "no lag exported", timeoutMs: 15_000 },
    );
  }, 60_000);

  it("moves the head to a block only once every partition has delivered it, with or without account activity", async () => {
    const before = await redis.hget(accountsKeys.head, "blockNumber");
    const block = nextBlock++;
    const all = seenKeys.map((_key, partition) => partition);
    // Every partition but the last has delivered the block: the last may still hold its accounts' records.
    const mark = announced.length;
    await seen(block, all.slice(0, -1));
    await caughtUp();
    expect(await redis.hget(accountsKeys.head, "blockNumber")).toBe(before);
    expect(announced.slice(mark)).toEqual([]);
    await seen(block, all.slice(-1));
    await caughtUp();
    // No account changed, but every answer about one shows the head as its as_of: the move is announced.
    expect(announced.slice(mark)).toEqual([{ projection: "accounts", accounts: [], truncated: false, head: true }]);
    expect(await redis.hgetall(accountsKeys.head)).toMatchObject({
      blockNumber: String(block),
      blockHash: hashOf(block),
      timestamp: new Date((T0 + block * 12) * 1_000).toISOString(),
    });
    for (const partition of all)
      expect(JSON.parse((await redis.zrange(accountsKeys.blocks(partition), "-1", "-1"))[0]!)).toMatchObject({
        blockNumber: String(block),
      });
  }, 60_000);

  it("takes back the activity and balance of a removed block, and the head with it", async () => {
    const owner = hex(32);
    const [kept, undone] = [nextBlock++, nextBlock++];
    await publish(owner, [activity(owner, ref(kept, 0), "100"), activity(owner, ref(undone, 0), "900")]);
    await seen(kept);
    await seen(undone);
    await caughtUp();
    expect(await latestFree(owner)).toBe("900");
    expect(await redis.hget(accountsKeys.head, "blockNumber")).toBe(String(undone));
    await publish(owner, [removal(owner, ref(undone, 0), kept)]);
    await unseen(undone, kept);
    await caughtUp();
    expect(await positionsOf(owner)).toEqual([`${kept}-0-0`]);
    expect(await latestFree(owner)).toBe("100");
    expect(await storedTransactions(owner)).toHaveLength(1);
    expect(await redis.hget(accountsKeys.head, "blockNumber")).toBe(String(kept));
    // The exported as_of goes back with the head.
    await waitFor(async () => (await scrape('read_model_as_of_block{read_model="accounts"}')) === kept, {
      what: "as_of block back at the common ancestor",
      timeoutMs: 10_000,
    });
  }, 60_000);

  it("rebuilds the same read model from the topic after Redis loses it (FLUSHALL)", async () => {
    const owner = hex(32);
    const blocks = [nextBlock++, nextBlock++, nextBlock++];
    await publish(
      owner,
      blocks.map((block, index) => activity(owner, ref(block, index), String(100 * (index + 1)))),
    );
    for (const block of blocks) await seen(block);
    await caughtUp();
    const snapshot = async () => ({
      txs: await storedTransactions(owner),
      points: await redis.zrange(accountsKeys.points(owner), "0", "-1", "WITHSCORES"),
      head: await redis.hgetall(accountsKeys.head),
    });
    const before = await snapshot();
    await redis.flushall();
    await waitFor(
      async () =>
        (await redis.zcard(accountsKeys.points(owner))) === 3 && (await redis.exists(accountsKeys.marker)) === 1,
      { what: "rebuilt read model", timeoutMs: 60_000 },
    );
    await caughtUp();
    expect(await snapshot()).toEqual(before);
  }, 90_000);
});

describe("accounts projection with the history database", () => {
  it("keeps every point and transaction in PostgreSQL, and in Redis only each account's newest points", async () => {
    const owner = hex(32);
    const blocks = Array.from({ length: 6 }, () => nextBlock++);
    await publish(
      owner,
      blocks.map((block, index) => activity(owner, ref(block, 0), String(10 * (index + 1)))),
    );
    for (const block of blocks) await seen(block);
    await caughtUp();
    const stored = await reader`
      select member, score::text as score from history.account_points where account = ${owner} order by score, member`;
    expect(stored).toHaveLength(6);
    expect(await storedTransactions(owner)).toHaveLength(6);
    // The newest four, exactly as PostgreSQL holds them; older ones only there.
    expect(await redis.zrange(accountsKeys.points(owner), "0", "-1", "WITHSCORES")).toEqual(
      stored.slice(-4).flatMap((row) => [row.member, row.score]),
    );
    expect(await latestFree(owner)).toBe("60");
    // Redis holds no transaction of any account.
    expect(await redis.keys(accountsKeys.txs("*"))).toEqual([]);
    expect(await redis.keys(accountsKeys.tx("*"))).toEqual([]);
    // Each partition's offset in PostgreSQL stands where Redis's does.
    const offsets = await reader`
      select partition, "offset"::text as "offset" from history.projection_offsets where projection = 'accounts'`;
    expect(offsets.length).toBeGreaterThan(0);
    for (const { partition, offset } of offsets)
      expect(await redis.get(accountsKeys.offset(TOPICS.chainNetwork.name, partition as number))).toBe(offset);
  }, 60_000);

  it("rebuilds Redis after a FLUSHALL under load from PostgreSQL and the topic's tail, the head never going back", async () => {
    // A backlog: 40 blocks of activity for 20 accounts.
    const owners = Array.from({ length: 20 }, () => hex(32));
    for (let round = 0; round < 40; round++) {
      const block = nextBlock++;
      for (const [index, owner] of owners.entries())
        await publish(owner, [activity(owner, ref(block, index), String(block * 10 + index))]);
      await seen(block);
    }
    await caughtUp();
    const applied = async () => (await scrape('projection_records_applied_total{projection="accounts"}')) ?? 0;
    const admin = kafka.admin();
    await admin.connect();
    const records = (await admin.fetchTopicOffsets(TOPICS.chainNetwork.name)).reduce(
      (sum, entry) => sum + Number(entry.high),
      0,
    );
    await admin.disconnect();
    const appliedBefore = await applied();
    // Under load: a block every 30 ms while a reader watches the head every 5 ms.
    let loading = true;
    const heads: number[] = [];
    const reading = (async () => {
      while (loading) {
        const head = await redis.hget(accountsKeys.head, "blockNumber");
        if (head !== null) heads.push(Number(head));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const writing = (async () => {
      while (loading) {
        const block = nextBlock++;
        await publish(owners[block % owners.length]!, [activity(owners[block % owners.length]!, ref(block, 0), "7")]);
        await seen(block);
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await redis.flushall();
    await waitFor(async () => (await redis.get(accountsKeys.marker)) === "complete", {
      what: "rebuilt read model complete",
      timeoutMs: 60_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    loading = false;
    await Promise.all([reading, writing]);
    await caughtUp();
    // The head never went back; the rebuild did not replay the topic from offset 0.
    expect(heads.length).toBeGreaterThan(10);
    for (let index = 1; index < heads.length; index++) expect(heads[index]).toBeGreaterThanOrEqual(heads[index - 1]!);
    expect((await applied()) - appliedBefore).toBeLessThan(records / 2);
    // Redis holds exactly each account's newest points as PostgreSQL has them.
    for (const owner of owners) {
      const newest = await reader`
        select member, score::text as score from history.account_points where account = ${owner}
        order by block desc limit 4`;
      expect(await redis.zrange(accountsKeys.points(owner), "0", "-1", "WITHSCORES")).toEqual(
        [...newest].reverse().flatMap((row) => [row.member, row.score]),
      );
    }
  }, 120_000);
});

describe("accounts projection: staking rewards", () => {
  it("records an epoch block's rewards as reward transactions in PostgreSQL and on the balance point in Redis, and takes them back with the block", async () => {
    const owner = hex(32);
    const hotkey = hex(32);
    const [before, epoch] = [nextBlock++, nextBlock++];
    const rewards = [{ netuid: 3, hotkey: accountId(hotkey), alphaNalpha: "150", taoValueRao: "75" }];
    const { txHash: _txHash, txIndex: _txIndex, logIndex: _logIndex, ...snapshotRef } = ref(epoch, 0);
    const snapshot: NetworkChainEvent = {
      event: {
        $case: "accountBalanceSnapshot",
        value: {
          ref: snapshotRef,
          account: accountId(owner),
          balance: {
            freeRao: "100",
            reservedRao: "0",
            frozenRao: "0",
            positions: [{ netuid: 3, hotkey: accountId(hotkey), stakeNalpha: "750" }],
            rewards,
          },
        },
      },
    };
    await publish(owner, [activity(owner, ref(before, 0), "100"), snapshot]);
    await seen(before);
    await seen(epoch);
    await caughtUp();
    const stored = await storedTransactions(owner);
    expect(stored.map(({ member }) => member.split("|")[2])).toEqual([`${before}-0-0`, `${epoch}-reward-3-${hotkey}`]);
    expect(AccountActivity.decode(Buffer.from(stored[1]!.detail, "base64"))).toMatchObject({
      type: TransactionType.TRANSACTION_TYPE_REWARD,
      direction: Direction.DIRECTION_IN,
      netuid: 3,
      hotkey: { publicKey: hotkey },
      alphaNalpha: "150",
      amountRao: "75",
      ref: { blockNumber: String(epoch), blockHash: hashOf(epoch) },
    });
    // Redis keeps the balance point of the epoch block, which carries the block's rewards.
    const [top] = await redis.zrange(accountsKeys.points(owner), "-1", "-1");
    expect(parsePointMember(top!)!.block).toBe(String(epoch));
    expect(AccountBalance.decode(Buffer.from(parsePointMember(top!)!.balance, "base64")).rewards).toMatchObject([
      { netuid: 3, alphaNalpha: "150", taoValueRao: "75" },
    ]);
    // The epoch block is abandoned: its snapshot's removal takes the point and the rewards.
    await publish(owner, [
      {
        event: {
          $case: "chainEventRemoved",
          value: {
            removed: snapshotRef,
            removedEventId: "x",
            removedEventType: "AccountBalanceSnapshot",
            key: owner,
            commonAncestorBlockNumber: String(before),
            commonAncestorBlockHash: hashOf(before),
            detectedAt: new Date().toISOString(),
          },
        },
      },
    ]);
    await unseen(epoch, before);
    await caughtUp();
    expect(await positionsOf(owner)).toEqual([`${before}-0-0`]);
    const [standing] = await redis.zrange(accountsKeys.points(owner), "-1", "-1");
    expect(parsePointMember(standing!)!.block).toBe(String(before));
    expect(
      await reader`select 1 from history.account_points where account = ${owner} and block = ${String(epoch)}`,
    ).toHaveLength(0);
  }, 60_000);
});

describe("a PostgreSQL restored from a base backup", () => {
  it("picks up where the backup stopped: the projection re-applies from its offsets there, Redis skipping", async () => {
    const owner = hex(32);
    const rowsOf = async (account: string) =>
      (await reader`select member from history.account_points where account = ${account} order by block`).map(
        (row) => row.member as string,
      );
    for (let round = 0; round < 3; round++) {
      const block = nextBlock++;
      await publish(owner, [activity(owner, ref(block, 0), String(block))]);
      await seen(block);
    }
    await caughtUp();
    const backup = join(dir.path, "basebackup");
    await takeBaseBackup(historyServer.postgres, backup, historyServer.passwords.postgres);
    // After the backup: more blocks, which the restored server will not hold.
    for (let round = 0; round < 3; round++) {
      const block = nextBlock++;
      await publish(owner, [activity(owner, ref(block, 0), String(block))]);
      await seen(block);
    }
    await caughtUp();
    const expected = await rowsOf(owner);
    expect(expected).toHaveLength(6);
    // The server is lost and restored from the backup, on the same address.
    const { port, dataDir } = historyServer.postgres;
    await historyServer.postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
    renameSync(backup, dataDir);
    restored = await startPostgres({
      port,
      dataDir,
      logFile: join(dir.path, "postgres-restored.log"),
      superuserPassword: historyServer.passwords.postgres,
    });
    expect(await rowsOf(owner)).toHaveLength(3);
    // The next block makes the projection find PostgreSQL behind, reload and re-apply from its offsets.
    const later = hex(32);
    const block = nextBlock++;
    await publish(later, [activity(later, ref(block, 0), "1")]);
    await seen(block);
    // Each partition finds PostgreSQL behind on its own next batch (every partition gets the block's BlockSeen).
    await waitFor(async () => (await rowsOf(later)).length === 1 && (await rowsOf(owner)).length === 6, {
      what: "the restored server caught up",
      timeoutMs: 90_000,
      intervalMs: 200,
    });
    expect(await rowsOf(owner)).toEqual(expected);
    await caughtUp();
    const offsets = await reader`
      select partition, "offset"::text as "offset" from history.projection_offsets where projection = 'accounts'`;
    for (const { partition, offset } of offsets)
      expect(await redis.get(accountsKeys.offset(TOPICS.chainNetwork.name, partition as number))).toBe(offset);
    // Redis applied nothing twice: the owner's newest points are the last four blocks, once each.
    expect(await redis.zcard(accountsKeys.points(owner))).toBe(4);
  }, 150_000);
});
