import { join } from "node:path";
import { status } from "@grpc/grpc-js";
import { unaryHandler } from "@platform/grpc";
import { createLogger } from "@platform/log";
import { Finality } from "@platform/proto/common/v1/common";
import { IntentRecord, IntentStatus, TransactionStatus } from "@platform/proto/intents/v1/intents";
import { intentsReadKeys } from "@platform/read-models";
import { createRedis, type Redis } from "@platform/store";
import { freePort, type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { notifiedKey } from "../notify/notifiedKeys.js";
import { getIntent } from "./getIntent.js";
import { listByTransaction } from "./listByTransaction.js";
import { listUserIntents } from "./listUserIntents.js";
import { mirroredRead } from "./mirrorGuard.js";

// The status reads against a real Redis seeded with the intents projection's layout, exactly as the
// projector writes it (records as protobuf IntentRecord).

const dir = tempDir("intents-reads");
let server: RunningRedis;
let redis: Redis;

const USER = "0x52908400098527886E0F7030069857D2E4169EE7";
const OTHER = "0x8617E340B3D01FA5F11F306F4090FD50E238070D".toLowerCase();
const ORIGIN = "31337";
const DESTINATION = "31338";
const chainIds = new Set([31337, 31338]);
const hex32 = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const TX = hex32(0xabc);

function record(orderId: string, overrides: Partial<IntentRecord> = {}): IntentRecord {
  return {
    orderId,
    status: IntentStatus.INTENT_STATUS_OPEN,
    isFinal: false,
    userAddress: USER,
    originChainId: ORIGIN,
    originTxHash: TX,
    destinationChainId: DESTINATION,
    input: { token: "0x5FbDB2315678afecb367f032d93F642f64180aa3", amount: "100000000" },
    output: { token: "0x5FbDB2315678afecb367f032d93F642f64180aa3", amount: "99850000", recipient: USER },
    fillDeadline: 1_763_770_000,
    opened: {
      chainId: ORIGIN,
      blockNumber: "120",
      blockHash: hex32(120),
      parentHash: hex32(119),
      blockTimestamp: "2026-11-22T10:00:00.000Z",
      txHash: TX,
      txIndex: 0,
      logIndex: 1,
      finality: Finality.FINALITY_LATEST,
    },
    updatedAt: "2026-11-22T10:00:01.000Z",
    asOf: [
      {
        chainId: ORIGIN,
        blockNumber: "120",
        blockHash: hex32(120),
        timestamp: "2026-11-22T10:00:00.000Z",
        finality: Finality.FINALITY_LATEST,
      },
    ],
    ...overrides,
  };
}

const put = (key: string, value: IntentRecord) => redis.set(key, Buffer.from(IntentRecord.encode(value).finish()));

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: { code?: string }) => error.code,
  );
}

beforeAll(async () => {
  server = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: server.url, connectionName: "intents-reads-test" });
  await waitFor(async () => redis.status === "ready", { what: "redis connection" });
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
  dir.remove();
});

beforeEach(async () => {
  await redis.flushdb();
});

describe("GetIntent", () => {
  it("answers the record with asOf brought up to the mirror's heads, for an id in any case", async () => {
    const orderId = hex32(1);
    await put(intentsReadKeys.order(orderId), record(orderId));
    await redis.hset(intentsReadKeys.head(ORIGIN), {
      blockNumber: "130",
      blockHash: hex32(130),
      timestamp: "1763769610",
    });
    await redis.hset(intentsReadKeys.head(DESTINATION), {
      blockNumber: "88",
      blockHash: hex32(88),
      timestamp: "2026-11-22T10:00:09Z",
    });

    const { intent } = await getIntent(redis, { orderId: orderId.toUpperCase().replace("0X", "0x") });
    expect(intent).toMatchObject({
      orderId,
      status: IntentStatus.INTENT_STATUS_OPEN,
      userAddress: USER,
      fillDeadline: 1_763_770_000,
    });
    expect(intent!.asOf).toEqual([
      {
        chainId: ORIGIN,
        blockNumber: "130",
        blockHash: hex32(130),
        timestamp: "2025-11-22T00:00:10.000Z",
        finality: Finality.FINALITY_LATEST,
      },
      {
        chainId: DESTINATION,
        blockNumber: "88",
        blockHash: hex32(88),
        timestamp: "2026-11-22T10:00:09.000Z",
        finality: Finality.FINALITY_LATEST,
      },
    ]);
  });

  it("keeps the record's own asOf for a chain without a head", async () => {
    const orderId = hex32(2);
    await put(intentsReadKeys.order(orderId), record(orderId));
    expect((await getIntent(redis, { orderId })).intent!.asOf).toEqual(record(orderId).asOf);
  });

  it("answers INTENT_NOT_FOUND for an unknown order and INVALID_PARAMETER for a malformed id", async () => {
    expect(await codeOf(getIntent(redis, { orderId: hex32(404) }))).toBe("INTENT_NOT_FOUND");
    expect(await codeOf(getIntent(redis, { orderId: "0x1234" }))).toBe("INVALID_PARAMETER");
  });

  it("answers UNAVAILABLE when Redis is away", async () => {
    const away = createRedis({
      url: `redis://127.0.0.1:${await freePort()}`,
      connectionName: "away",
      commandTimeoutMs: 200,
    });
    try {
      expect(await codeOf(getIntent(away, { orderId: hex32(1) }))).toBe("UNAVAILABLE");
    } finally {
      away.disconnect();
    }
  });
});

describe("while the mirror is rebuilt (its projection marker not complete)", () => {
  it("answers 503 REBUILDING instead of an older status or a not-found, and the record once the marker says complete", async () => {
    const orderId = hex32(7);
    await put(intentsReadKeys.order(orderId), record(orderId));
    const log = createLogger({ service: "mirror-guard-test", level: "silent" });
    const guarded = mirroredRead(
      redis,
      unaryHandler<{ orderId: string }, unknown>(log, "GetIntent", (request) => getIntent(redis, request)),
    );
    const call = (id: string) =>
      new Promise<{ code?: number; errorCode?: string; value?: unknown }>((resolve) =>
        // As grpc-js's call: its caller set a deadline of 2 s.
        guarded(
          { request: { orderId: id }, getDeadline: () => new Date(Date.now() + 2_000) } as never,
          (error, value) =>
            resolve(
              error
                ? {
                    code: (error as { code?: number }).code,
                    errorCode: String(
                      (error as { metadata?: { get(key: string): unknown[] } }).metadata?.get("x-error-code")[0],
                    ),
                  }
                : { value },
            ),
        ),
      );
    for (const marker of [undefined, "rebuilding:4f0c"]) {
      if (marker !== undefined) await redis.set(intentsReadKeys.marker, marker);
      expect(await call(orderId)).toEqual({ code: status.UNAVAILABLE, errorCode: "REBUILDING" });
      expect(await call(hex32(404))).toEqual({ code: status.UNAVAILABLE, errorCode: "REBUILDING" });
    }
    await redis.set(intentsReadKeys.marker, "complete");
    expect(((await call(orderId)).value as { intent: { orderId: string } }).intent.orderId).toBe(orderId);
    expect(await call(hex32(404))).toMatchObject({ errorCode: "INTENT_NOT_FOUND" });
  });
});

describe("ListByTransaction", () => {
  const list = (txHash = TX, originChainId = ORIGIN) => listByTransaction(redis, chainIds, { originChainId, txHash });

  it("answers every order the transaction opened, in log order, as SUCCEEDED", async () => {
    const [first, second] = [hex32(0xf2), hex32(0xf1)];
    await put(intentsReadKeys.order(first), record(first, { opened: { ...record(first).opened!, logIndex: 0 } }));
    await put(intentsReadKeys.order(second), record(second, { opened: { ...record(second).opened!, logIndex: 3 } }));
    await redis.sadd(intentsReadKeys.txOrders(ORIGIN, TX), first, second);
    await redis.hset(intentsReadKeys.txState(ORIGIN, TX), {
      status: "NOTIFIED",
      userAddress: USER,
      notifiedAt: "2026-11-22T09:59:58.000Z",
    });
    await redis.hset(intentsReadKeys.head(ORIGIN), {
      blockNumber: "131",
      blockHash: hex32(131),
      timestamp: "1763769611",
    });

    const answer = await list(TX.toUpperCase().replace("0X", "0x"));
    expect(answer.intents.map((intent) => intent.orderId)).toEqual([first, second]);
    expect(answer.transactionStatus).toBe(TransactionStatus.TRANSACTION_STATUS_SUCCEEDED);
    expect(answer.asOf).toEqual([
      {
        chainId: ORIGIN,
        blockNumber: "131",
        blockHash: hex32(131),
        timestamp: "2025-11-22T00:00:11.000Z",
        finality: Finality.FINALITY_LATEST,
      },
    ]);
  });

  it("answers a notified transaction's SUBMITTED record while it is not mined", async () => {
    await redis.hset(intentsReadKeys.txState(ORIGIN, TX), {
      status: "NOTIFIED",
      userAddress: USER,
      notifiedAt: "2026-11-22T09:59:58.000Z",
    });
    await put(
      intentsReadKeys.txOrder(ORIGIN, TX),
      record("", {
        status: IntentStatus.INTENT_STATUS_SUBMITTED,
        destinationChainId: undefined,
        opened: undefined,
        notifiedAt: "2026-11-22T09:59:58.000Z",
      }),
    );
    const answer = await list();
    expect(answer.transactionStatus).toBe(TransactionStatus.TRANSACTION_STATUS_PENDING);
    expect(answer.intents).toHaveLength(1);
    expect(answer.intents[0]).toMatchObject({
      orderId: "",
      status: IntentStatus.INTENT_STATUS_SUBMITTED,
      originTxHash: TX,
    });
  });

  it.each([
    ["REVERTED", TransactionStatus.TRANSACTION_STATUS_REVERTED],
    ["DROPPED", TransactionStatus.TRANSACTION_STATUS_DROPPED],
    ["SUCCEEDED", TransactionStatus.TRANSACTION_STATUS_SUCCEEDED],
  ])("maps the projection's tx state %s", async (state, expected) => {
    await redis.hset(intentsReadKeys.txState(ORIGIN, TX), {
      status: state,
      userAddress: USER,
      notifiedAt: "2026-11-22T09:59:58.000Z",
      resolvedAt: "2026-11-22T10:00:00.000Z",
    });
    expect((await list()).transactionStatus).toBe(expected);
  });

  it("is PENDING when only this service's notification exists, NOT_FOUND when nothing does", async () => {
    expect(await list()).toEqual({
      intents: [],
      transactionStatus: TransactionStatus.TRANSACTION_STATUS_NOT_FOUND,
      asOf: [],
    });
    await redis.set(
      notifiedKey(ORIGIN, TX),
      JSON.stringify({ userAddress: USER, orderId: null, notifiedAt: "2026-11-22T09:59:58.000Z" }),
    );
    expect((await list()).transactionStatus).toBe(TransactionStatus.TRANSACTION_STATUS_PENDING);
  });

  it("refuses a chain that is not an intents chain and a malformed hash", async () => {
    expect(await codeOf(list(TX, "1"))).toBe("UNSUPPORTED_CHAIN");
    expect(await codeOf(list("0x12"))).toBe("INVALID_PARAMETER");
  });
});

describe("ListPending and ListExpired", () => {
  // 45 pending entries; scores repeat in threes so page boundaries fall inside runs of equal scores.
  async function seedPending(): Promise<string[]> {
    const members: Array<{ score: number; member: string }> = [];
    for (let index = 0; index < 45; index++) {
      const member = index % 9 === 4 ? `tx:${ORIGIN}:${hex32(0x7000 + index)}` : hex32(0x1000 + index);
      members.push({ score: 1_763_000_000_000 + Math.floor(index / 3), member });
      if (member.startsWith("tx:"))
        await put(
          intentsReadKeys.txOrder(ORIGIN, hex32(0x7000 + index)),
          record("", { status: IntentStatus.INTENT_STATUS_SUBMITTED, originTxHash: hex32(0x7000 + index) }),
        );
      else await put(intentsReadKeys.order(member), record(member));
    }
    await redis.zadd(intentsReadKeys.userPending(USER), ...members.flatMap(({ score, member }) => [score, member]));
    // Newest first; equal scores in Redis' reverse member order.
    return members.sort((a, b) => b.score - a.score || (a.member < b.member ? 1 : -1)).map(({ member }) => member);
  }
  const idOf = (intent: IntentRecord) =>
    intent.orderId === "" ? `tx:${intent.originChainId}:${intent.originTxHash}` : intent.orderId;

  it("pages through every pending intent newest first, without loss or repeat", async () => {
    const expected = await seedPending();
    const seen: string[] = [];
    const pages: Array<{ count: number; hasMore: boolean; limit: number }> = [];
    let cursor = "";
    do {
      const { intents, page } = await listUserIntents(redis, "pending", {
        userAddress: USER.toLowerCase(),
        page: { limit: 0, cursor },
      });
      seen.push(...intents.map(idOf));
      pages.push({ count: intents.length, hasMore: page.hasMore, limit: page.limit });
      cursor = page.nextCursor ?? "";
      expect(page.hasMore).toBe(page.nextCursor !== undefined);
    } while (cursor !== "");
    expect(pages).toEqual([
      { count: 20, hasMore: true, limit: 20 },
      { count: 20, hasMore: true, limit: 20 },
      { count: 5, hasMore: false, limit: 20 },
    ]);
    expect(seen).toEqual(expected);
  });

  it("honours a limit, pages of equal scores included, and leaves out a member whose record is gone", async () => {
    const expected = await seedPending();
    await redis.del(intentsReadKeys.order(expected[1]!));
    const first = await listUserIntents(redis, "pending", { userAddress: USER, page: { limit: 2, cursor: "" } });
    expect(first.intents.map(idOf)).toEqual([expected[0]]);
    expect(first.page).toMatchObject({ limit: 2, hasMore: true });
    const second = await listUserIntents(redis, "pending", {
      userAddress: USER,
      page: { limit: 2, cursor: first.page.nextCursor! },
    });
    expect(second.intents.map(idOf)).toEqual(expected.slice(2, 4));
  });

  it("answers an empty page for a user with nothing pending", async () => {
    expect(await listUserIntents(redis, "pending", { userAddress: USER, page: { limit: 5, cursor: "" } })).toEqual({
      intents: [],
      page: { limit: 5, hasMore: false },
    });
  });

  it("lists expired intents by latest fill deadline first", async () => {
    const ids = [hex32(0x51), hex32(0x52), hex32(0x53)];
    for (const [index, id] of ids.entries()) {
      await put(
        intentsReadKeys.order(id),
        record(id, {
          status: IntentStatus.INTENT_STATUS_EXPIRED,
          fillDeadline: 1_763_770_000 + index,
          refundableAt: new Date((1_763_770_060 + index) * 1_000).toISOString(),
        }),
      );
      await redis.zadd(intentsReadKeys.userExpired(USER), 1_763_770_000 + index, id);
    }
    const { intents, page } = await listUserIntents(redis, "expired", {
      userAddress: USER,
      page: { limit: 2, cursor: "" },
    });
    expect(intents.map((intent) => intent.orderId)).toEqual([ids[2], ids[1]]);
    expect(intents[0]).toMatchObject({
      status: IntentStatus.INTENT_STATUS_EXPIRED,
      refundableAt: "2025-11-22T00:07:42.000Z",
    });
    const rest = await listUserIntents(redis, "expired", {
      userAddress: USER,
      page: { limit: 2, cursor: page.nextCursor! },
    });
    expect(rest.intents.map((intent) => intent.orderId)).toEqual([ids[0]]);
    expect(rest.page).toEqual({ limit: 2, hasMore: false });
  });

  it("refuses a bad cursor, another list's or user's cursor, a limit over 100 and a bad address", async () => {
    await seedPending();
    const { page } = await listUserIntents(redis, "pending", { userAddress: USER, page: { limit: 1, cursor: "" } });
    expect(
      await codeOf(listUserIntents(redis, "pending", { userAddress: USER, page: { limit: 1, cursor: "nope!" } })),
    ).toBe("INVALID_CURSOR");
    expect(
      await codeOf(
        listUserIntents(redis, "expired", { userAddress: USER, page: { limit: 1, cursor: page.nextCursor! } }),
      ),
    ).toBe("INVALID_CURSOR");
    expect(
      await codeOf(
        listUserIntents(redis, "pending", { userAddress: OTHER, page: { limit: 1, cursor: page.nextCursor! } }),
      ),
    ).toBe("INVALID_CURSOR");
    expect(
      await codeOf(listUserIntents(redis, "pending", { userAddress: USER, page: { limit: 101, cursor: "" } })),
    ).toBe("INVALID_PARAMETER");
    expect(
      await codeOf(listUserIntents(redis, "pending", { userAddress: "0x123", page: { limit: 1, cursor: "" } })),
    ).toBe("INVALID_ADDRESS");
  });
});
