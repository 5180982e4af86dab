/**
 * An account's first page of transactions from the history database (data-query
 * `accounts/transactions.ts` with PostgreSQL), on a real PostgreSQL 15 (startHistoryServer, the
 * schema migrated, the data_query role reading) and a real Redis holding the accounts head:
 *
 * - **baseline**: the read before commit 3c34969: the head read in Redis beside the page's
 *   statement (kept here as text), which had no check of the head; each row decoded and mapped as
 *   data-query maps it, the page cut at the head;
 * - **measured**: `listTransactions` itself: the head read first, then one statement that reads
 *   the page and checks that the head's block stands in every partition (`historyAtHead.ts`).
 *   The first form of the check (3c34969: a BEGIN, the check, the page, a COMMIT) measured 2.66
 *   times the baseline's time here, one call at a time.
 *
 * Seeded: BENCH_ACCOUNTS (2,000) accounts of BENCH_TRANSACTIONS (200) transactions each, the
 * newest 512 blocks delivered by each of the 6 partitions (what the projector keeps). Asked: the
 * first page of 50, newest first, for accounts taken in turn, one call at a time and 16 at once.
 *
 *   cd bench && pnpm transactions-at-head
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { historyTables } from "@platform/history";
import { startHistoryServer } from "@platform/history/testing";
import { Direction, TransactionSource, TransactionType } from "@platform/proto/common/v1/network";
import { AccountActivity } from "@platform/proto/events/v1/chain_network";
import { TOPICS } from "@platform/proto/topics";
import { accountsKeys } from "@platform/read-models";
import { createRedis } from "@platform/store";
import { accountFromPublicKey } from "@platform/subtensor";
import { startRedis, tempDir, waitFor } from "@platform/testing";
import { listTransactions, transactionOf } from "../../services/data-query/src/accounts/transactions.js";
import { readAsOf } from "../../services/data-query/src/shared/asOf.js";
import { table } from "../src/load.js";

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 2_000);
const TRANSACTIONS = Number(process.env.BENCH_TRANSACTIONS ?? 200);
const CALLS = Number(process.env.BENCH_CALLS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const HEAD = 1_000_000;
const T0 = Date.UTC(2026, 10, 1);
const timeOf = (block: number) => T0 + block * 12_000;
const hashOf = (block: number) => `0x${block.toString(16).padStart(64, "0")}`;
const pad = (value: number, width: number) => String(value).padStart(width, "0");

const dir = tempDir("bench-transactions-at-head");
const [redisServer, historyServer] = await Promise.all([
  startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
  startHistoryServer({ dataDir: join(dir.path, "postgres") }),
]);
const redis = createRedis({ url: redisServer.url, connectionName: "bench-transactions-at-head" });
await waitFor(async () => redis.status === "ready", { what: "redis" });
const owner = historyServer.connect("postgres", 1);
const reader = historyServer.connect("data_query", 16);

const accounts = Array.from({ length: ACCOUNTS }, () => `0x${randomBytes(32).toString("hex")}`);
const seeding = Date.now();
const first = HEAD - TRANSACTIONS * 20;
await owner.unsafe(`select history.ensure_block_partitions('account_transactions', ${first}, ${HEAD})`);
for (const account of accounts) {
  const rows = Array.from({ length: TRANSACTIONS }, (_, index) => {
    const block = first + index * 20;
    const activity = AccountActivity.encode(
      AccountActivity.fromPartial({
        ref: {
          chainId: "964",
          blockNumber: String(block),
          blockHash: hashOf(block),
          parentHash: hashOf(block - 1),
          blockTimestamp: new Date(timeOf(block)).toISOString(),
          txIndex: 1,
        },
        account: accountFromPublicKey(account as `0x${string}`),
        activityId: `${block}-1-0`,
        type: TransactionType.TRANSACTION_TYPE_TRANSFER,
        direction: Direction.DIRECTION_IN,
        success: true,
        amountRao: "1000",
        source: TransactionSource.TRANSACTION_SOURCE_SUBSTRATE_EVENT,
      }),
    ).finish();
    const member = `${pad(block, 12)}-${pad(1, 6)}-${pad(0, 7)}|${hashOf(block)}|${block}-1-0|i`;
    return [
      account,
      String(block),
      String(Math.floor(timeOf(block) / 1_000)),
      member,
      Buffer.from(activity).toString("base64"),
    ];
  });
  await owner.unsafe(
    `insert into ${historyTables.accountTransactions} select * from unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[])`,
    [0, 1, 2, 3, 4].map((column) => rows.map((row) => row[column])) as never,
  );
}
const partitions = Array.from({ length: TOPICS.chainNetwork.partitions }, (_, partition) => partition);
const delivered = Array.from({ length: 512 }, (_, index) => HEAD - 511 + index);
await owner.unsafe(
  `insert into ${historyTables.accountBlocks} select p, b, json_build_object('chainId', '964', 'blockNumber', b::text,
     'blockHash', '0x' || lpad(to_hex(b), 64, '0'), 'timestamp', 'x')::text
   from unnest($1::int[]) as p cross join unnest($2::bigint[]) as b`,
  [partitions, delivered] as never,
);
await owner.unsafe(`analyze`);
await redis.hset(accountsKeys.head, {
  chainId: "964",
  blockNumber: String(HEAD),
  blockHash: hashOf(HEAD),
  timestamp: new Date(timeOf(HEAD)).toISOString(),
});
console.log(
  `seeded ${ACCOUNTS} accounts × ${TRANSACTIONS} transactions in ${((Date.now() - seeding) / 1000).toFixed(0)} s`,
);

const request = (address: string) => ({ address, types: [], direction: 0, netuids: [], order: 0 });
/** The read before 3c34969: the head beside the page's statement (no check), the page cut at the head. */
async function baseline(address: string): Promise<string[]> {
  const page = async () => {
    const rows = await reader.unsafe(
      `select score::text as score, member, detail from ${historyTables.accountTransactions}
       where account = $1 and score >= $2 and ($3::bigint is null or score < $3)
       order by score desc, member desc limit 51`,
      [address, 0, null] as never,
    );
    return rows.map((row) => ({
      member: row.member as string,
      transaction: transactionOf(AccountActivity.decode(Buffer.from(row.detail as string, "base64"))),
    }));
  };
  const [asOf, found] = await Promise.all([readAsOf(redis, accountsKeys.head), page()]);
  return found
    .filter((item) => Number(item.member.slice(0, 12)) <= Number(asOf.blockNumber))
    .slice(0, 50)
    .map((item) => item.transaction.id);
}
const measured = async (address: string) =>
  (await listTransactions(redis, request(address), timeOf(HEAD), reader)).transactions.map((item) => item.id);

// Both answer the same page before either is timed.
const check = accounts[0]!;
const [a, b] = [await baseline(check), await measured(check)];
if (a.length !== 50 || a.join() !== b.join()) throw new Error("the two reads disagree");

async function run(read: (address: string) => Promise<unknown>, concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < CALLS) await read(accounts[next++ % ACCOUNTS]!);
    }),
  );
  return ((performance.now() - started) * 1_000) / CALLS;
}
const results: Record<string, { baseline: number[]; measured: number[] }> = {};
for (let round = 0; round < ROUNDS; round++)
  for (const concurrency of [1, 16]) {
    const name = `${concurrency} at once`;
    results[name] ??= { baseline: [], measured: [] };
    const entry = results[name];
    const sides: ["baseline" | "measured", (address: string) => Promise<unknown>][] = [
      ["baseline", baseline],
      ["measured", measured],
    ];
    for (const [side, read] of round % 2 === 0 ? sides : sides.reverse())
      entry[side].push(await run(read, concurrency));
  }
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
console.log(
  table(
    Object.entries(results).map(([name, entry]) => ({
      calls: name,
      "baseline µs a call (median)": median(entry.baseline).toFixed(0),
      "measured µs a call (median)": median(entry.measured).toFixed(0),
      "measured ÷ baseline": (median(entry.measured) / median(entry.baseline)).toFixed(3),
    })),
  ),
);
redis.disconnect();
await Promise.all([owner.end(), reader.end()]);
await Promise.all([redisServer.stop(), historyServer.stop()]);
dir.remove();
