import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { Writable } from "node:stream";
import { Metadata } from "@grpc/grpc-js";
import { AppError } from "@platform/errors";
import { callUnary, createGrpcClient, type RunningGrpcServer, startGrpcServer } from "@platform/grpc";
import type { HistoryDb, HistoryTransaction } from "@platform/history";
import { type HistoryServer, startHistoryServer } from "@platform/history/testing";
import { createLogger } from "@platform/log";
import { Finality, Interval, SortOrder } from "@platform/proto/common/v1/common";
import { Direction, TransactionSource, TransactionType } from "@platform/proto/common/v1/network";
import {
  AccountsServiceClient,
  type GetBalanceHistoryRequest,
  type GetBalanceLatestRequest,
  type ListTransactionsRequest,
  type Transaction,
} from "@platform/proto/data/v1/accounts";
import { AccountActivity, AccountBalance } from "@platform/proto/events/v1/chain_network";
import { TOPICS } from "@platform/proto/topics";
import { accountsKeys } from "@platform/read-models";
import { createRedis, type Redis } from "@platform/store";
import { accountFromPublicKey } from "@platform/subtensor";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalanceHistory } from "../balanceHistory.js";
import { accountsGrpcService } from "../index.js";
import { marketPriceKeys } from "../keys.js";
import { listTransactions } from "../transactions.js";

/*
 * AccountsService over gRPC against a real Redis holding the accounts read model exactly as the
 * projector's keys.ts documents it (members written here by hand, so this is also the contract
 * test of the layout), with the market projection's price keys beside it. Run twice: on Redis
 * alone (`redis`), and with the history database (`history`), where the balance points are in
 * both stores as the projector leaves them and the transactions only in PostgreSQL: every answer
 * must be the same.
 */
/** Set by the test file that imports this module (accounts.int.test.ts, accountsHistory.int.test.ts). */
const mode = process.env.ACCOUNTS_CONTRACT_MODE === "history" ? "history" : "redis";
const dir = tempDir("data-query-accounts");
const log = createLogger({
  service: "data-query-test",
  level: "warn",
  destination: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
});
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.now();
/** Block b's time: 12 s blocks from an hour boundary two days ago (300 blocks an hour). */
const BASE_MS = Math.floor((NOW - 2 * DAY) / HOUR) * HOUR;
const timeOf = (block: number) => BASE_MS + block * 12_000;
const hashOf = (block: number) => `0x${block.toString(16).padStart(64, "0")}`;

let redisServer: RunningRedis;
let historyServer: HistoryServer | undefined;
/** The projector's role: the rows are written as it writes them. */
let writer: HistoryDb | undefined;
let historyDb: HistoryDb | undefined;
let redis: Redis;
let server: RunningGrpcServer;
let client: AccountsServiceClient;

beforeAll(async () => {
  redisServer = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  if (mode === "history") {
    historyServer = await startHistoryServer();
    writer = historyServer.connect("postgres");
    historyDb = historyServer.connect("data_query");
    await writer`select history.ensure_block_partitions('account_points', 0, 400000)`;
    await writer`select history.ensure_block_partitions('account_transactions', 0, 400000)`;
  }
  redis = createRedis({ url: redisServer.url, connectionName: "data-query-test" });
  await waitFor(async () => redis.status === "ready", { what: "redis connection" });
  server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services: [accountsGrpcService({ redis, log, history: historyDb })],
  });
  server.setServing(true);
  client = createGrpcClient(AccountsServiceClient, { target: `127.0.0.1:${server.port}`, deadlineMs: 10_000 });
  await setHead(14_000);
  await addPoolPoint(3, 14_000, "0.5");
  await redis.zadd(
    marketPriceKeys.coinPoints,
    "1",
    JSON.stringify({ o: 1, b: 1, h: hashOf(1), t: timeOf(1), p: "", m: { price: "300" } }),
  );
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.shutdown(1_000);
  redis?.disconnect();
  await redisServer?.stop();
  await historyServer?.stop();
  dir.remove();
}, 30_000);

const pad = (value: number, width: number) => String(value).padStart(width, "0");
const newKey = () => `0x${randomBytes(32).toString("hex")}`;
const HOTKEY = accountFromPublicKey(`0x${"77".repeat(32)}`);

/** The partitions of chain.network.v1 the head waits for (the topic catalog's count). */
const PARTITIONS = Array.from({ length: TOPICS.chainNetwork.partitions }, (_, partition) => partition);

/** Moves the head in Redis; with the history database, every partition has delivered the block there first. */
async function setHead(block: number, hash = hashOf(block)): Promise<void> {
  const head = {
    chainId: "964",
    blockNumber: String(block),
    blockHash: hash,
    timestamp: new Date(timeOf(block)).toISOString(),
  };
  if (writer !== undefined) await deliverBlock(writer, block, hash);
  await redis.hset(accountsKeys.head, head);
}

/** Every partition's BlockSeen of the block in history.account_blocks, as the projector writes it. */
async function deliverBlock(sql: HistoryDb | HistoryTransaction, block: number, hash: string): Promise<void> {
  const member = JSON.stringify({
    chainId: "964",
    blockNumber: String(block),
    blockHash: hash,
    timestamp: new Date(timeOf(block)).toISOString(),
  });
  await sql.unsafe(
    `insert into history.account_blocks select p, $1, $2 from unnest($3::int[]) as p on conflict do nothing`,
    [block, member, PARTITIONS] as never,
  );
}

/** A pool snapshot point of the market projection (only what AccountsService reads of it). */
async function addPoolPoint(netuid: number, block: number, price: string): Promise<void> {
  const ordinal = block * 100_000 + 7;
  await redis.zadd(
    marketPriceKeys.poolPoints(netuid),
    String(ordinal),
    JSON.stringify({ o: ordinal, b: block, h: hashOf(block), t: timeOf(block), p: "", m: { price } }),
  );
}

async function addPoint(
  publicKey: string,
  block: number,
  balance: Omit<AccountBalance, "rewards"> & Partial<Pick<AccountBalance, "rewards">>,
  timeMs = timeOf(block),
): Promise<void> {
  const encoded = Buffer.from(AccountBalance.encode({ rewards: [], ...balance }).finish()).toString("base64");
  const score = Math.floor(timeMs / 1_000);
  const member = `${pad(block, 12)}|${hashOf(block)}|${timeMs}|${encoded}`;
  await redis.zadd(accountsKeys.points(publicKey), String(score), member);
  if (writer !== undefined)
    await writer`insert into history.account_points values (${publicKey}, ${block}, ${score}, ${member})
      on conflict (account, block) do update set score = excluded.score, member = excluded.member`;
}

function activity(
  owner: string,
  block: number,
  txIndex: number,
  extra: Partial<AccountActivity> = {},
): AccountActivity {
  return {
    ref: {
      chainId: "964",
      blockNumber: String(block),
      blockHash: hashOf(block),
      parentHash: hashOf(block - 1),
      blockTimestamp: new Date(timeOf(block)).toISOString(),
      txHash: `0x${pad(block, 58)}${pad(txIndex, 6)}`,
      txIndex,
      finality: Finality.FINALITY_LATEST,
    },
    account: accountFromPublicKey(owner as `0x${string}`),
    activityId: `${block}-${txIndex}-0`,
    type: TransactionType.TRANSACTION_TYPE_TRANSFER,
    direction: Direction.DIRECTION_IN,
    success: true,
    from: accountFromPublicKey(`0x${"11".repeat(32)}`),
    to: accountFromPublicKey(owner as `0x${string}`),
    amountRao: "1000",
    source: TransactionSource.TRANSACTION_SOURCE_EVM_TX,
    ...extra,
  };
}

async function addTransactions(owner: string, activities: AccountActivity[]): Promise<void> {
  const pipeline = redis.pipeline();
  const rows: Array<[string, string, string, string, string]> = [];
  for (const item of activities) {
    const ref = item.ref!;
    const member = `${pad(Number(ref.blockNumber), 12)}-${pad(ref.txIndex ?? 0, 6)}-${pad(ref.logIndex === undefined ? 0 : ref.logIndex + 1, 7)}|${ref.blockHash}|${item.activityId}|${item.direction === Direction.DIRECTION_OUT ? "o" : "i"}`;
    const score = String(Math.floor(Date.parse(ref.blockTimestamp) / 1_000));
    const detail = Buffer.from(AccountActivity.encode(item).finish()).toString("base64");
    // With the history database the projector keeps no transaction in Redis.
    if (writer === undefined) {
      pipeline.zadd(accountsKeys.txs(owner), score, member);
      pipeline.hset(accountsKeys.tx(owner), member, detail);
    } else rows.push([owner, ref.blockNumber, score, member, detail]);
  }
  await pipeline.exec();
  if (writer !== undefined && rows.length > 0)
    await writer.unsafe(
      `insert into history.account_transactions select * from unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[])`,
      [0, 1, 2, 3, 4].map((column) => rows.map((row) => row[column])) as never,
    );
}

const latest = (request: Partial<GetBalanceLatestRequest>) =>
  callUnary(client, client.getBalanceLatest, { address: "", valuation: 0, netuids: [], ...request }, new Metadata());
const history = (request: Partial<GetBalanceHistoryRequest>) =>
  callUnary(client, client.getBalanceHistory, { address: "", order: 0, ...request }, new Metadata());
const transactions = (request: Partial<ListTransactionsRequest>) =>
  callUnary(
    client,
    client.listTransactions,
    { address: "", types: [], direction: 0, netuids: [], order: 0, ...request },
    new Metadata(),
  );

async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    return error instanceof AppError ? error.code : `not an AppError: ${String(error)}`;
  }
  return "no error";
}

describe("GetBalanceLatest", () => {
  it("answers the newest balance valued at spot, with positions, USD and the head as_of", async () => {
    const owner = newKey();
    await addPoint(owner, 100, { freeRao: "1", reservedRao: "0", frozenRao: "0", positions: [] });
    await addPoint(owner, 200, {
      freeRao: "5000000000",
      reservedRao: "10",
      frozenRao: "7",
      positions: [
        { netuid: 0, hotkey: HOTKEY, stakeNalpha: "2000000000" },
        { netuid: 3, hotkey: HOTKEY, stakeNalpha: "3000000001" },
      ],
    });
    const account = accountFromPublicKey(owner as `0x${string}`);
    const response = await latest({ address: account.ss58 });
    expect(response.asOf).toMatchObject({ chainId: "964", blockNumber: "14000", blockHash: hashOf(14_000) });
    expect(response.address).toMatchObject({ ss58: account.ss58, publicKey: owner });
    expect(response).toMatchObject({
      balanceFreeRao: "5000000000",
      balanceReservedRao: "10",
      balanceFrozenRao: "7",
      balanceStakedRootRao: "2000000000",
      balanceStakedAlphaValueRao: "1500000000",
      balanceStakedRao: "3500000000",
      balanceTotalRao: "8500000010",
      priceUsd: "300",
      balanceTotalUsd: "2550.000003",
      positionsCount: 2,
    });
    expect(response.positions[1]).toMatchObject({
      netuid: 3,
      stakeNalpha: "3000000001",
      priceTao: "0.5",
      valueRao: "1500000000",
    });
    const filtered = await latest({ address: owner, netuids: [3] });
    expect(filtered.positions.map((position) => position.netuid)).toEqual([3]);
    expect(filtered.balanceTotalRao).toBe("8500000010");
  });

  it("answers as of the pools' newest snapshot, with the balance of then, when the market lags the accounts head", async () => {
    const owner = newKey();
    const position = { netuid: 5, hotkey: HOTKEY, stakeNalpha: "4000000000" };
    await addPoint(owner, 13_990, { freeRao: "1000", reservedRao: "0", frozenRao: "0", positions: [position] });
    // Later blocks within the second of block 13,995's time: the walk back must pass over them.
    for (const block of [13_996, 13_997, 13_998, 13_999]) {
      await addPoint(
        owner,
        block,
        { freeRao: String(block), reservedRao: "0", frozenRao: "0", positions: [position] },
        timeOf(13_995) + (block - 13_995) * 100,
      );
    }
    await addPoint(owner, 14_000, { freeRao: "2000", reservedRao: "0", frozenRao: "0", positions: [position] });
    await addPoolPoint(5, 13_980, "0.5");
    await addPoolPoint(5, 13_995, "0.25");

    const response = await latest({ address: owner });
    expect(response.asOf).toMatchObject({
      chainId: "964",
      blockNumber: "13995",
      blockHash: hashOf(13_995),
      timestamp: new Date(timeOf(13_995)).toISOString(),
    });
    expect(response).toMatchObject({
      balanceFreeRao: "1000",
      balanceStakedAlphaValueRao: "1000000000",
      balanceTotalRao: "1000001000",
      priceUsd: "300",
    });
    expect(response.positions).toMatchObject([{ netuid: 5, priceTao: "0.25", valueRao: "1000000000" }]);

    // The market catches up: the head's answer again, with the head's balance and price.
    await addPoolPoint(5, 14_000, "0.5");
    const caughtUp = await latest({ address: owner });
    expect(caughtUp.asOf?.blockNumber).toBe("14000");
    expect(caughtUp).toMatchObject({ balanceFreeRao: "2000", balanceStakedAlphaValueRao: "2000000000" });
  });

  it("values USD at the newest round at or before the as_of time, whatever block numbers the feed's chain has", async () => {
    // A feed on another chain: block numbers far above the accounts head; one round before the head's time, one after.
    const rounds = [
      { o: 900_000 * 100_000, b: 900_000, t: timeOf(14_000) - 1_000, price: "310" },
      { o: 900_001 * 100_000, b: 900_001, t: timeOf(14_000) + 60_000, price: "999" },
    ].map((round) => ({
      score: String(round.o),
      member: JSON.stringify({
        o: round.o,
        b: round.b,
        h: hashOf(round.b),
        t: round.t,
        p: "",
        m: { price: round.price },
      }),
    }));
    for (const round of rounds) await redis.zadd(marketPriceKeys.coinPoints, round.score, round.member);
    try {
      const owner = newKey();
      await addPoint(owner, 13_000, { freeRao: "2000000000", reservedRao: "0", frozenRao: "0", positions: [] });
      const response = await latest({ address: owner });
      expect(response.asOf?.blockNumber).toBe("14000");
      expect(response).toMatchObject({ priceUsd: "310", balanceTotalUsd: "620" });
    } finally {
      await redis.zrem(marketPriceKeys.coinPoints, ...rounds.map((round) => round.member));
    }
  });

  it("answers zeros with as_of for a fresh address, and INVALID_ADDRESS for a malformed one", async () => {
    const response = await latest({ address: "0x000000000000000000000000000000000000dEaD" });
    expect(response).toMatchObject({ balanceFreeRao: "0", balanceTotalRao: "0", positionsCount: 0, positions: [] });
    expect(response.asOf?.blockNumber).toBe("14000");
    expect(response.address?.evmH160).toBe("0x000000000000000000000000000000000000dEaD");
    expect(await codeOf(latest({ address: "not-an-address" }))).toBe("INVALID_ADDRESS");
    expect(await codeOf(latest({ address: "0x1234" }))).toBe("INVALID_ADDRESS");
  });
});

describe("GetBalanceHistory", () => {
  it("carries the balance to the end of every hourly bucket and pages through them", async () => {
    const owner = newKey();
    // Block 3,000 opens an hour; 3,010 is two minutes later, 3,900 three hours later.
    await addPoint(owner, 3_000, { freeRao: "100", reservedRao: "0", frozenRao: "0", positions: [] });
    await addPoint(owner, 3_010, { freeRao: "150", reservedRao: "0", frozenRao: "0", positions: [] });
    await addPoint(owner, 3_900, { freeRao: "90", reservedRao: "0", frozenRao: "0", positions: [] });
    const start = new Date(Math.floor(timeOf(3_000) / HOUR) * HOUR).toISOString();
    const end = new Date(Math.floor(timeOf(3_000) / HOUR) * HOUR + 5 * HOUR).toISOString();
    const all = await history({
      address: owner,
      window: { start, end, interval: Interval.INTERVAL_ONE_HOUR },
      order: SortOrder.SORT_ORDER_ASC,
    });
    expect(all.interval).toBe(Interval.INTERVAL_ONE_HOUR);
    expect(all.points.map((point) => point.balanceFreeRao)).toEqual(["150", "150", "150", "90", "90"]);
    expect(all.points.map((point) => point.changeTotalRao)).toEqual(["0", "0", "0", "-60", "0"]);
    expect(all.points[0]).toMatchObject({
      bucketStart: start,
      blockNumber: "3010",
      timestamp: new Date(timeOf(3_010)).toISOString(),
    });
    expect(all.page?.hasMore).toBe(false);

    const seen: string[] = [];
    let cursor = "";
    do {
      const page = await history({
        address: owner,
        window: { start, end, interval: Interval.INTERVAL_ONE_HOUR },
        page: { limit: 2, cursor },
      });
      seen.push(...page.points.map((point) => point.bucketStart));
      cursor = page.page?.nextCursor ?? "";
    } while (cursor !== "");
    expect(seen).toEqual(all.points.map((point) => point.bucketStart).reverse());
  });

  it("sums each bucket's staking income from the rewards its balance points carry", async () => {
    const owner = newKey();
    const position = { netuid: 3, hotkey: HOTKEY, stakeNalpha: "1000" };
    const reward = (netuid: number, alpha: string, rao: string) => ({
      netuid,
      hotkey: HOTKEY,
      alphaNalpha: alpha,
      taoValueRao: rao,
    });
    // An hour of 300 blocks from block 6,000: two epoch blocks in the first hour, one in the third.
    await addPoint(owner, 6_000, { freeRao: "100", reservedRao: "0", frozenRao: "0", positions: [position] });
    await addPoint(owner, 6_100, {
      freeRao: "100",
      reservedRao: "0",
      frozenRao: "0",
      positions: [{ ...position, stakeNalpha: "1010" }],
      rewards: [reward(3, "10", "5"), reward(0, "7", "7")],
    });
    await addPoint(owner, 6_200, {
      freeRao: "100",
      reservedRao: "0",
      frozenRao: "0",
      positions: [{ ...position, stakeNalpha: "1030" }],
      rewards: [reward(3, "20", "10")],
    });
    await addPoint(owner, 6_700, {
      freeRao: "100",
      reservedRao: "0",
      frozenRao: "0",
      positions: [{ ...position, stakeNalpha: "1029" }],
      rewards: [reward(3, "-1", "0")],
    });
    const hour = Math.floor(timeOf(6_000) / HOUR) * HOUR;
    const all = await history({
      address: owner,
      window: {
        start: new Date(hour).toISOString(),
        end: new Date(hour + 3 * HOUR).toISOString(),
        interval: Interval.INTERVAL_ONE_HOUR,
      },
      order: SortOrder.SORT_ORDER_ASC,
    });
    expect(all.points.map((point) => [point.rewardRao, point.rewardBlocks])).toEqual([
      ["22", 2],
      ["0", 0],
      ["0", 1],
    ]);
    expect(all.points[0]!.positions).toEqual([
      { netuid: 0, alphaNalpha: "0", rewardAlphaNalpha: "7" },
      { netuid: 3, alphaNalpha: "1030", rewardAlphaNalpha: "30" },
    ]);
    expect(all.points[2]!.positions).toEqual([{ netuid: 3, alphaNalpha: "1029", rewardAlphaNalpha: "-1" }]);
  });

  it("without an end, runs to the head even when the chain's clock is ahead of this server's", async () => {
    const owner = newKey();
    await addPoint(owner, 13_500, { freeRao: "42", reservedRao: "0", frozenRao: "0", positions: [] });
    await addTransactions(owner, [activity(owner, 13_500, 0)]);
    // This server's clock stands at block 13,000's time: the head (14,000) and the activity are "in its future".
    const clock = timeOf(13_000);
    const points = await getBalanceHistory(
      redis,
      { address: owner, order: SortOrder.SORT_ORDER_ASC, window: { interval: Interval.INTERVAL_ONE_HOUR } },
      clock,
      historyDb,
    );
    // The bucket of block 13,500 and the next, which holds the head (100 minutes later): both carry that balance.
    expect(points.points.map((point) => [point.blockNumber, point.balanceFreeRao])).toEqual([
      ["13500", "42"],
      ["13500", "42"],
    ]);
    const listed = await listTransactions(
      redis,
      { address: owner, types: [], direction: 0, netuids: [], order: 0 },
      clock,
      historyDb,
    );
    expect(listed.transactions.map((item) => item.id)).toEqual(["13500-0-0"]);
  });

  it("answers an empty history for a fresh address and refuses windows over the interval's maximum", async () => {
    expect((await history({ address: newKey() })).points).toEqual([]);
    const window = {
      start: "2026-01-01T00:00:00Z",
      end: "2026-03-01T00:00:00Z",
      interval: Interval.INTERVAL_ONE_HOUR,
    };
    expect(await codeOf(history({ address: newKey(), window }))).toBe("WINDOW_TOO_LARGE");
    expect(await codeOf(history({ address: newKey(), window: { ...window, interval: Interval.INTERVAL_BLOCK } }))).toBe(
      "INVALID_PARAMETER",
    );
  });
});

describe("ListTransactions: paging, filters and mapping", () => {
  it("walks 1,000 transactions page by page, each once and in order, while new blocks land", async () => {
    const owner = newKey();
    const originals = Array.from({ length: 1_000 }, (_, index) =>
      activity(owner, 5_000 + Math.floor(index / 3), index % 3),
    );
    await addTransactions(owner, originals);
    const expected = originals.map((item) => item.activityId);

    for (const order of [SortOrder.SORT_ORDER_DESC, SortOrder.SORT_ORDER_ASC]) {
      const seen: Transaction[] = [];
      let cursor = "";
      let appended = 0;
      do {
        const page = await transactions({ address: owner, order, page: { limit: 70, cursor } });
        seen.push(...page.transactions);
        cursor = page.page?.nextCursor ?? "";
        // A new block lands between two pages.
        const block = 6_000 + appended++ + (order === SortOrder.SORT_ORDER_ASC ? 500 : 0);
        await addTransactions(owner, [activity(owner, block, 0)]);
      } while (cursor !== "");
      const ids = seen.map((item) => item.id);
      expect(new Set(ids).size).toBe(ids.length);
      const originalsSeen = ids.filter((id) => expected.includes(id));
      expect(originalsSeen).toEqual(order === SortOrder.SORT_ORDER_ASC ? expected : [...expected].reverse());
    }
  });

  it("filters by direction, type, counterparty and amount and maps the activity's fields", async () => {
    const owner = newKey();
    const other = `0x${"22".repeat(32)}`;
    await addTransactions(owner, [
      activity(owner, 7_000, 0, { amountRao: "10" }),
      activity(owner, 7_001, 0, {
        direction: Direction.DIRECTION_OUT,
        from: accountFromPublicKey(owner as `0x${string}`),
        to: accountFromPublicKey(other as `0x${string}`),
        amountRao: "500",
        feeRao: "3",
      }),
      activity(owner, 7_002, 1, {
        type: TransactionType.TRANSACTION_TYPE_STAKE_ADD,
        netuid: 3,
        alphaNalpha: "99",
        effectivePriceTao: "0.5",
        amountRao: "50",
      }),
    ]);
    const out = await transactions({ address: owner, direction: Direction.DIRECTION_OUT });
    expect(out.transactions).toHaveLength(1);
    expect(out.transactions[0]).toMatchObject({
      id: "7001-0-0",
      direction: Direction.DIRECTION_OUT,
      amountRao: "500",
      feeRao: "3",
      blockNumber: "7001",
      timestamp: new Date(timeOf(7_001)).toISOString(),
    });
    expect(out.transactions[0]?.evmTxHash).toMatch(/^0x/);
    expect(
      (await transactions({ address: owner, types: [TransactionType.TRANSACTION_TYPE_STAKE_ADD] })).transactions.map(
        (item) => [item.id, item.netuid, item.alphaNalpha],
      ),
    ).toEqual([["7002-1-0", 3, "99"]]);
    expect((await transactions({ address: owner, counterparty: other })).transactions.map((item) => item.id)).toEqual([
      "7001-0-0",
    ]);
    expect(
      (await transactions({ address: owner, minAmountRao: "20", maxAmountRao: "100" })).transactions.map(
        (item) => item.id,
      ),
    ).toEqual(["7002-1-0"]);
    expect((await transactions({ address: owner, netuids: [3] })).transactions.map((item) => item.id)).toEqual([
      "7002-1-0",
    ]);
  });

  it("maps native activity: the event's name, the extrinsic, and the EVM hash only for an EVM execution", async () => {
    const owner = newKey();
    const native = (block: number, eventName: string, extra: Partial<AccountActivity> = {}) =>
      activity(owner, block, 2, {
        source: TransactionSource.TRANSACTION_SOURCE_SUBSTRATE_EVENT,
        eventName,
        extrinsicId: `${block}-2`,
        extrinsicHash: `0x${"ab".repeat(32)}`,
        ...extra,
      });
    await addTransactions(owner, [
      native(7_100, "Balances.Transfer"),
      native(7_101, "Ethereum.Executed", { type: TransactionType.TRANSACTION_TYPE_EVM_TX }),
    ]);
    const [executed, transfer] = (await transactions({ address: owner })).transactions;
    expect(transfer).toMatchObject({
      eventName: "Balances.Transfer",
      blockNumber: "7100",
      blockHash: hashOf(7_100),
      extrinsicId: "7100-2",
      extrinsicHash: `0x${"ab".repeat(32)}`,
    });
    expect(transfer?.evmTxHash).toBeUndefined();
    expect(executed).toMatchObject({
      eventName: "Ethereum.Executed",
      extrinsicId: "7101-2",
      evmTxHash: `0x${pad(7_101, 58)}${pad(2, 6)}`,
    });
  });
});

describe("ListTransactions: as of the head, and the documented errors", () => {
  it("leaves out what the account's partition delivered past the head: balance, history and transactions are as of the head", async () => {
    const owner = newKey();
    await addPoint(owner, 13_998, { freeRao: "100", reservedRao: "0", frozenRao: "0", positions: [] });
    await addPoint(owner, 14_002, { freeRao: "999", reservedRao: "0", frozenRao: "0", positions: [] });
    await addTransactions(owner, [activity(owner, 13_998, 0), activity(owner, 14_001, 0), activity(owner, 14_002, 4)]);

    const balance = await latest({ address: owner });
    expect(balance.asOf?.blockNumber).toBe("14000");
    expect(balance.balanceFreeRao).toBe("100");
    const points = await history({ address: owner, order: SortOrder.SORT_ORDER_ASC });
    expect(points.points.at(-1)).toMatchObject({ balanceFreeRao: "100" });
    for (const order of [SortOrder.SORT_ORDER_DESC, SortOrder.SORT_ORDER_ASC]) {
      const page = await transactions({ address: owner, order });
      expect(page.transactions.map((item) => item.id)).toEqual(["13998-0-0"]);
      expect(page.page?.hasMore).toBe(false);
    }
  });

  it("answers an empty list with as_of for a fresh address, and the documented errors", async () => {
    const fresh = await transactions({ address: newKey() });
    expect(fresh.transactions).toEqual([]);
    expect(fresh.page).toMatchObject({ hasMore: false, limit: 50 });
    expect(fresh.asOf?.blockNumber).toBe("14000");
    expect(await codeOf(transactions({ address: "5Invalid" }))).toBe("INVALID_ADDRESS");
    expect(await codeOf(transactions({ address: newKey(), page: { limit: 10, cursor: "garbage!" } }))).toBe(
      "INVALID_CURSOR",
    );
    const owner = newKey();
    await addTransactions(
      owner,
      Array.from({ length: 5 }, (_, index) => activity(owner, 8_000 + index, 0)),
    );
    const first = await transactions({ address: owner, page: { limit: 2, cursor: "" } });
    // A cursor is bound to its query: another order or another address refuses it.
    expect(
      await codeOf(
        transactions({
          address: owner,
          order: SortOrder.SORT_ORDER_ASC,
          page: { limit: 2, cursor: first.page!.nextCursor! },
        }),
      ),
    ).toBe("INVALID_CURSOR");
    expect(await codeOf(transactions({ address: newKey(), page: { limit: 2, cursor: first.page!.nextCursor! } }))).toBe(
      "INVALID_CURSOR",
    );
    expect(
      await codeOf(
        transactions({
          address: owner,
          window: { start: "2024-01-01T00:00:00Z", end: "2025-06-01T00:00:00Z", interval: 0 },
        }),
      ),
    ).toBe("WINDOW_TOO_LARGE");
    expect(await codeOf(transactions({ address: owner, page: { limit: 201, cursor: "" } }))).toBe("INVALID_PARAMETER");
  });
});

/*
 * The projector commits a batch to PostgreSQL before Redis: after a reorganisation the history
 * may have lost the head's block while Redis still names it. An answer must then wait for the head
 * to follow, never name the abandoned block over the new branch's items.
 */
if (mode === "history")
  describe("ListTransactions and GetBalanceHistory: while PostgreSQL stands a reorganisation ahead of Redis", () => {
    const HEAD = 14_000;
    const NEW_HASH = `0x${"ab".repeat(32)}`;

    /** The reorganisation as the projector's PostgreSQL commit leaves it: the head's block replaced there only. */
    async function reorganiseHeadInHistory(owner: string): Promise<void> {
      await writer!.begin(async (tx) => {
        await tx`delete from history.account_transactions where account = ${owner} and block = ${HEAD}`;
        await tx`delete from history.account_points where account = ${owner} and block = ${HEAD}`;
        await tx`delete from history.account_blocks where block = ${HEAD}`;
        await deliverBlock(tx, HEAD, NEW_HASH);
        const moved = activity(owner, HEAD, 2);
        const ref = { ...moved.ref!, blockHash: NEW_HASH };
        const item = { ...moved, ref, activityId: `${HEAD}-2-0` };
        const member = `${pad(HEAD, 12)}-${pad(2, 6)}-${pad(0, 7)}|${NEW_HASH}|${item.activityId}|i`;
        const detail = Buffer.from(AccountActivity.encode(item).finish()).toString("base64");
        const score = Math.floor(timeOf(HEAD) / 1_000);
        await tx`insert into history.account_transactions values (${owner}, ${HEAD}, ${score}, ${member}, ${detail})`;
        const balance = AccountBalance.encode({
          freeRao: "200",
          reservedRao: "0",
          frozenRao: "0",
          positions: [],
          rewards: [],
        }).finish();
        const point = `${pad(HEAD, 12)}|${NEW_HASH}|${timeOf(HEAD)}|${Buffer.from(balance).toString("base64")}`;
        await tx`insert into history.account_points values (${owner}, ${HEAD}, ${score}, ${point})`;
      });
    }

    async function restoreHead(): Promise<void> {
      await writer!`delete from history.account_blocks where block = ${HEAD}`;
      await setHead(HEAD);
    }

    it("waits for the head to follow, so the items and the balance are the as_of block's", async () => {
      const owner = newKey();
      await addPoint(owner, HEAD - 10, { freeRao: "50", reservedRao: "0", frozenRao: "0", positions: [] });
      await addPoint(owner, HEAD, { freeRao: "100", reservedRao: "0", frozenRao: "0", positions: [] });
      await addTransactions(owner, [activity(owner, HEAD - 10, 0), activity(owner, HEAD, 1)]);
      expect((await transactions({ address: owner })).transactions.map((item) => item.id)).toEqual([
        `${HEAD}-1-0`,
        `${HEAD - 10}-0-0`,
      ]);
      try {
        await reorganiseHeadInHistory(owner);
        const listed = transactions({ address: owner });
        const balances = history({ address: owner, order: SortOrder.SORT_ORDER_ASC });
        // Redis follows later (a slow commit): until then neither answer may go out.
        await new Promise((resolve) => setTimeout(resolve, 150));
        await setHead(HEAD, NEW_HASH);
        const [page, points] = await Promise.all([listed, balances]);
        expect(page.asOf?.blockHash).toBe(NEW_HASH);
        expect(page.transactions.map((item) => [item.id, item.blockHash])).toEqual([
          [`${HEAD}-2-0`, NEW_HASH],
          [`${HEAD - 10}-0-0`, hashOf(HEAD - 10)],
        ]);
        expect(points.asOf?.blockHash).toBe(NEW_HASH);
        expect(points.points.at(-1)).toMatchObject({ blockNumber: String(HEAD), balanceFreeRao: "200" });
      } finally {
        await restoreHead();
      }
    });

    it("answers READ_MODEL_UNAVAILABLE when the head never follows, rather than a mixed answer", async () => {
      const owner = newKey();
      await addTransactions(owner, [activity(owner, HEAD, 1)]);
      try {
        await reorganiseHeadInHistory(owner);
        const request = { address: owner, types: [], direction: 0, netuids: [], order: 0 };
        expect(await codeOf(listTransactions(redis, request, Date.now(), historyDb))).toBe("READ_MODEL_UNAVAILABLE");
      } finally {
        await restoreHead();
      }
    });
  });
