import { join } from "node:path";
import { Writable } from "node:stream";
import { type HistoryDb, historyTables } from "@platform/history";
import { type HistoryServer, startHistoryServer } from "@platform/history/testing";
import { createLogger } from "@platform/log";
import { IntentRecord, IntentStatus } from "@platform/proto/intents/v1/intents";
import { intentsChangeLog } from "@platform/read-models";
import { createRedis, type Redis, redisReadiness } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IntentsHistoryMirror, startIntentsHistoryMirror } from "./historyMirror.js";

/*
 * The intents history mirror on a real Redis and a real PostgreSQL, fed change-log entries written
 * as the projection writes them (commitWrites.ts changeEntry; the projection's own run is in
 * projection.int.test.ts): a restart resumes after the last entry written, a removal deletes the
 * order and keeps its history, and a log trimmed past the mirror's position is reported.
 */

const dir = tempDir("intents-mirror");
const log = createLogger({
  service: "mirror-test",
  level: "silent",
  destination: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
});
let redisServer: RunningRedis;
let historyServer: HistoryServer;
let redis: Redis;
let reader: HistoryDb;
let writer: HistoryDb;

beforeAll(async () => {
  [redisServer, historyServer] = await Promise.all([
    startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
    startHistoryServer({ dataDir: join(dir.path, "postgres") }),
  ]);
  redis = createRedis({ url: redisServer.url, connectionName: "mirror-test" });
  await waitFor(() => redisReadiness(redis), { what: "the test's Redis connection", timeoutMs: 10_000 });
  reader = historyServer.connect("data_query");
  writer = historyServer.connect("projector");
}, 120_000);

afterAll(async () => {
  redis?.disconnect();
  await Promise.all([redisServer?.stop(), historyServer?.stop()]);
  dir.remove();
}, 60_000);

const USER = "0x0000000000000000000000000000000000000A11";

/** Appends a change as the projection's commit does; an undefined status removes the record. */
async function change(orderKey: string, status: IntentStatus | undefined, statusChanged = true): Promise<void> {
  const { fields, key } = intentsChangeLog;
  const record =
    status === undefined
      ? ""
      : Buffer.from(
          IntentRecord.encode(
            IntentRecord.fromPartial({
              orderId: orderKey,
              status,
              userAddress: USER,
              updatedAt: "2026-12-06T08:00:00Z",
            }),
          ).finish(),
        );
  await redis.xadd(
    key,
    "*",
    fields.key,
    orderKey,
    fields.user,
    USER,
    fields.record,
    record,
    fields.statusChanged,
    statusChanged ? "1" : "0",
  );
}

const statuses = async (orderKey: string) =>
  (
    await reader.unsafe(
      `select status from ${historyTables.intentOrderChanges} where order_key = $1 order by change_ms, change_seq`,
      [orderKey],
    )
  ).map((row) => row.status as number | null);
const orderStatus = async (orderKey: string) =>
  (await reader.unsafe(`select status from ${historyTables.intentOrders} where order_key = $1`, [orderKey]))[0]
    ?.status as number | undefined;

function mirrorOn(connectionName: string): { mirror: IntentsHistoryMirror; stop: () => Promise<void> } {
  const connection = createRedis({ url: redisServer.url, connectionName });
  const mirror = startIntentsHistoryMirror({ redis: connection, history: writer, log, blockMs: 100, count: 2 });
  return {
    mirror,
    stop: async () => {
      await mirror.stop();
      connection.disconnect();
    },
  };
}

describe("intents history mirror", () => {
  it("mirrors every change in order across a restart, none twice, and a removal keeps the history", async () => {
    const first = mirrorOn("mirror-1");
    await change("0xa1", IntentStatus.INTENT_STATUS_OPEN);
    await change("0xa1", IntentStatus.INTENT_STATUS_FILLED);
    await change("0xb2", IntentStatus.INTENT_STATUS_OPEN);
    await waitFor(async () => (await orderStatus("0xb2")) === IntentStatus.INTENT_STATUS_OPEN, {
      what: "three changes mirrored",
      timeoutMs: 20_000,
    });
    const stoppedAt = first.mirror.position();
    await first.stop();

    // Written while no mirror runs: the next one resumes from PostgreSQL's stored position.
    await change("0xa1", IntentStatus.INTENT_STATUS_SETTLED);
    await change("0xa1", IntentStatus.INTENT_STATUS_SETTLED, false);
    await change("0xb2", undefined);
    const second = mirrorOn("mirror-2");
    try {
      await waitFor(async () => (await orderStatus("0xb2")) === undefined && (await statuses("0xb2")).length === 2, {
        what: "the changes made while stopped",
        timeoutMs: 20_000,
      });
      expect(second.mirror.position() > stoppedAt).toBe(true);
      expect(await statuses("0xa1")).toEqual([
        IntentStatus.INTENT_STATUS_OPEN,
        IntentStatus.INTENT_STATUS_FILLED,
        IntentStatus.INTENT_STATUS_SETTLED,
        IntentStatus.INTENT_STATUS_SETTLED,
      ]);
      expect(await orderStatus("0xa1")).toBe(IntentStatus.INTENT_STATUS_SETTLED);
      // The removed record's history stays, its removal last.
      expect(await statuses("0xb2")).toEqual([IntentStatus.INTENT_STATUS_OPEN, null]);
      expect(second.mirror.gaps()).toBe(0);
      expect(second.mirror.healthy()).toBe(true);
    } finally {
      await second.stop();
    }
  });

  it("reports a log trimmed past its position instead of passing over it silently", async () => {
    for (const status of [IntentStatus.INTENT_STATUS_OPEN, IntentStatus.INTENT_STATUS_FILLED])
      await change("0xc3", status);
    // Trimmed while no mirror ran: the first of the two entries above is gone unread.
    await redis.xtrim(intentsChangeLog.key, "MAXLEN", 1);
    const third = mirrorOn("mirror-3");
    try {
      await waitFor(async () => (await orderStatus("0xc3")) === IntentStatus.INTENT_STATUS_FILLED, {
        what: "the entry left mirrored",
        timeoutMs: 20_000,
      });
      expect(third.mirror.gaps()).toBe(1);
      expect(await statuses("0xc3")).toEqual([IntentStatus.INTENT_STATUS_FILLED]);
    } finally {
      await third.stop();
    }
  });
});
