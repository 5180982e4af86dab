import { join } from "node:path";
import type { ConsumedRecord, ProjectionBatch } from "@platform/bus";
import type { HistoryDb } from "@platform/history";
import { type HistoryServer, startHistoryServer } from "@platform/history/testing";
import { createLogger } from "@platform/log";
import { createRedis, type Redis, redisReadiness } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { StoreBehindError } from "./decodedRecords.js";
import { defineProjection } from "./defineProjection.js";
import { postgresStore } from "./postgresStore.js";
import { redisStore } from "./redisStore.js";
import type { ProjectionStore } from "./store.js";

/*
 * One projection committing to a real PostgreSQL and a real Redis: each record lands exactly once
 * in each store, whatever happens between their commits. The projection sums amounts per key in
 * both stores, so a record applied twice (or never) shows in the totals.
 */

const dir = tempDir("projection-two-stores");
const log = createLogger({ service: "projection-test", level: "silent" });
let history: HistoryServer;
let db: HistoryDb;
let redisServer: RunningRedis;
let redis: Redis;
let otherRedis: Redis;

beforeAll(async () => {
  [history, redisServer] = await Promise.all([
    startHistoryServer(),
    startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
  ]);
  db = history.connect("postgres");
  redis = createRedis({ url: redisServer.url, connectionName: "projection-test" });
  otherRedis = createRedis({ url: redisServer.url, connectionName: "projection-test-other" });
  await waitFor(() => redisReadiness(redis), { what: "redis ready" });
  await db`create table public.tally (key text primary key, total bigint not null)`;
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  otherRedis?.disconnect();
  await history?.stop();
  await redisServer?.stop();
  dir.remove();
});

beforeEach(async () => {
  await redis.flushall();
  await db`truncate public.tally`;
  await db`delete from history.projection_offsets where projection = 'tally'`;
});

interface Amount {
  key: string;
  amount: number;
}

const record = (offset: number, key: string, amount: number): ConsumedRecord => ({
  topic: "t",
  partition: 0,
  offset: String(offset),
  timestamp: "0",
  key,
  value: Buffer.from(String(amount)),
  eventId: undefined,
  eventType: "Amount",
  schema: undefined,
  traceparent: undefined,
  tracestate: undefined,
  headers: {},
});

function batch(previousOffset: number | undefined, records: ConsumedRecord[]): ProjectionBatch {
  return {
    topic: "t",
    partition: 0,
    messages: records,
    lastOffset: records.at(-1)!.offset,
    previousOffset: previousOffset === undefined ? undefined : String(previousOffset),
    heartbeat: async () => undefined,
  };
}

const postgresSide = (): ProjectionStore<Amount> =>
  postgresStore<Amount>({
    db,
    projection: "tally",
    async write(tx, changes) {
      for (const { key, amount } of changes)
        await tx`insert into public.tally values (${key}, ${amount})
          on conflict (key) do update set total = tally.total + excluded.total`;
    },
  });

const redisSide = (connection: Redis = redis): ProjectionStore<Amount> =>
  redisStore<Amount>({
    redis: connection,
    log,
    offsetKey: (topic, partition) => `tally:offset:${topic}:${partition}`,
    prepare: async (changes) => (multi) => {
      for (const { key, amount } of changes) multi.incrby(`tally:${key}`, amount);
    },
  });

/** A store that fails its next `failures` commits before committing (a crash between the stores). */
function failing(store: ProjectionStore<Amount>, failures: number): ProjectionStore<Amount> {
  let left = failures;
  return {
    ...store,
    async apply(batchToApply, records) {
      if (left-- > 0) throw new Error("the process died here");
      return store.apply(batchToApply, records);
    },
  };
}

const tally = (stores: ProjectionStore<Amount>[]) =>
  defineProjection<Amount>({
    name: "tally",
    log,
    decode: (message) => [{ key: message.key!, amount: Number(message.value!.toString()) }],
    stores,
  });

async function totals(): Promise<{ postgres: Record<string, number>; redis: Record<string, number> }> {
  const rows = await db`select key, total::int as total from public.tally order by key`;
  const keys = (await redis.keys("tally:*")).filter((key) => !key.includes(":offset:")).sort();
  const values = keys.length === 0 ? [] : await redis.mget(...keys);
  return {
    postgres: Object.fromEntries(rows.map((row) => [row.key as string, row.total as number])),
    redis: Object.fromEntries(keys.map((key, index) => [key.slice("tally:".length), Number(values[index])])),
  };
}

describe("a projection on PostgreSQL and Redis", () => {
  it("applies each batch once to each store, and a batch delivered again changes nothing", async () => {
    const projection = tally([postgresSide(), redisSide()]);
    const first = batch(undefined, [record(0, "a", 1), record(1, "b", 2)]);
    await projection.handleBatch(first);
    await projection.handleBatch(first);
    await projection.handleBatch(batch(1, [record(2, "a", 10)]));
    expect(await totals()).toEqual({ postgres: { a: 11, b: 2 }, redis: { a: 11, b: 2 } });
    expect(await projection.loadOffsets("t", 0)).toBe("2");
  });

  it("a crash between the two commits: the restart resumes from Redis's offset, PostgreSQL skips what it holds", async () => {
    await tally([postgresSide(), redisSide()]).handleBatch(batch(undefined, [record(0, "a", 1)]));
    const crashing = tally([postgresSide(), failing(redisSide(), 1)]);
    await expect(crashing.handleBatch(batch(0, [record(1, "a", 2), record(2, "b", 5)]))).rejects.toThrow(
      "the process died here",
    );
    expect(await totals()).toEqual({ postgres: { a: 3, b: 5 }, redis: { a: 1 } });
    // A new process: the consumer resumes after the lowest stored offset and delivers the batch again.
    const restarted = tally([postgresSide(), redisSide()]);
    expect(await restarted.loadOffsets("t", 0)).toBe("0");
    await restarted.handleBatch(batch(0, [record(1, "a", 2), record(2, "b", 5)]));
    expect(await totals()).toEqual({ postgres: { a: 3, b: 5 }, redis: { a: 3, b: 5 } });
    expect(await restarted.loadOffsets("t", 0)).toBe("2");
  });

  it("a crash before PostgreSQL committed applies nothing anywhere, and the retry applies it once", async () => {
    const crashing = tally([failing(postgresSide(), 1), redisSide()]);
    await expect(crashing.handleBatch(batch(undefined, [record(0, "a", 4)]))).rejects.toThrow();
    expect(await totals()).toEqual({ postgres: {}, redis: {} });
    await crashing.handleBatch(batch(undefined, [record(0, "a", 4)]));
    expect(await totals()).toEqual({ postgres: { a: 4 }, redis: { a: 4 } });
  });

  it("a store found behind the batch's start (restored from an older backup) is refused, then caught up alone", async () => {
    const projection = tally([postgresSide(), redisSide()]);
    await projection.handleBatch(batch(undefined, [record(0, "a", 1)]));
    await projection.handleBatch(batch(0, [record(1, "a", 2)]));
    // PostgreSQL goes back to where it stood after offset 0, as a restore from a base backup would.
    await db`update public.tally set total = 1 where key = 'a'`;
    await db`update history.projection_offsets set "offset" = 0 where projection = 'tally'`;
    await expect(projection.handleBatch(batch(1, [record(2, "a", 4)]))).rejects.toBeInstanceOf(StoreBehindError);
    // The consumer reloads: the lowest offset is PostgreSQL's, and the records from there are delivered.
    expect(await projection.loadOffsets("t", 0)).toBe("0");
    await projection.handleBatch(batch(0, [record(1, "a", 2), record(2, "a", 4)]));
    expect(await totals()).toEqual({ postgres: { a: 7 }, redis: { a: 7 } });
  });

  it("two members applying the same batch at once (a rebalance overlap) apply it once", async () => {
    const members = [tally([postgresSide(), redisSide(redis)]), tally([postgresSide(), redisSide(otherRedis)])];
    const same = batch(undefined, [record(0, "a", 1), record(1, "a", 1), record(2, "c", 3)]);
    await Promise.all(members.map((member) => member.handleBatch(same)));
    expect(await totals()).toEqual({ postgres: { a: 2, c: 3 }, redis: { a: 2, c: 3 } });
  });
});
