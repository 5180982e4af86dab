import { invalidArgument } from "@platform/errors";
import type { HistoryDb } from "@platform/history";
import type { AsOf } from "@platform/proto/common/v1/common";
import { Direction, TransactionSource } from "@platform/proto/common/v1/network";
import type { ListTransactionsRequest, ListTransactionsResponse, Transaction } from "@platform/proto/data/v1/accounts";
import { AccountActivity } from "@platform/proto/events/v1/chain_network";
import { accountsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readAsOf, readModel } from "../shared/asOf.js";
import { DURATION } from "../shared/buckets.js";
import { decodeCursor, encodeCursor, queryScope } from "../shared/cursor.js";
import { orderOf, pageLimitOf } from "../shared/page.js";
import { resolveWindow } from "../shared/window.js";
import { scanZset, type ZsetEntry } from "../shared/zsetScan.js";
import { parseAddress } from "./address.js";
import { readHistoryAtHead } from "./historyAtHead.js";
import { scanTransactions, type TransactionScan } from "./historyReads.js";

export const TRANSACTIONS_PAGE = { defaultLimit: 50, maxLimit: 200 } as const;
const WINDOW = { defaultSpanMs: 90 * DURATION.DAY, maxSpanMs: 366 * DURATION.DAY } as const;
/** Entries examined per request at most; a sparse filter answers a short page with a cursor to go on. */
const SCAN_BUDGET = 5_000;
const AMOUNT = /^\d{1,30}$/;

interface Filters {
  types: Set<number>;
  direction: Direction;
  netuids: Set<number>;
  counterparty: string | undefined;
  min: bigint | undefined;
  max: bigint | undefined;
}

function amountOf(value: string | undefined, parameter: string): bigint | undefined {
  if (value === undefined || value === "") return undefined;
  if (!AMOUNT.test(value))
    throw invalidArgument("INVALID_PARAMETER", `${parameter} must be a whole number of rao`, { parameter });
  return BigInt(value);
}

function matches(activity: AccountActivity, filters: Filters): boolean {
  if (filters.types.size > 0 && !filters.types.has(activity.type)) return false;
  if (filters.direction !== Direction.DIRECTION_UNSPECIFIED && activity.direction !== filters.direction) return false;
  if (filters.netuids.size > 0 && (activity.netuid === undefined || !filters.netuids.has(activity.netuid)))
    return false;
  if (filters.counterparty !== undefined) {
    const self = activity.account?.publicKey.toLowerCase();
    const other = [activity.from?.publicKey, activity.to?.publicKey]
      .map((key) => key?.toLowerCase())
      .filter((key) => key !== undefined && key !== self);
    if (!other.includes(filters.counterparty)) return false;
  }
  if (filters.min !== undefined || filters.max !== undefined) {
    if (activity.amountRao === undefined) return false;
    const amount = BigInt(activity.amountRao);
    if (filters.min !== undefined && amount < filters.min) return false;
    if (filters.max !== undefined && amount > filters.max) return false;
  }
  return true;
}

export function transactionOf(activity: AccountActivity): Transaction {
  const ref = activity.ref;
  return {
    id: activity.activityId,
    type: activity.type,
    direction: activity.direction,
    success: activity.success,
    blockNumber: ref?.blockNumber ?? "0",
    timestamp: ref?.blockTimestamp ?? "",
    ...(ref?.blockHash ? { blockHash: ref.blockHash.toLowerCase() } : {}),
    ...(activity.extrinsicId === undefined ? {} : { extrinsicId: activity.extrinsicId }),
    ...(activity.extrinsicHash === undefined ? {} : { extrinsicHash: activity.extrinsicHash }),
    ...(carriesEvmHash(activity) && ref?.txHash !== undefined ? { evmTxHash: ref.txHash } : {}),
    ...(activity.from === undefined ? {} : { from: activity.from }),
    ...(activity.to === undefined ? {} : { to: activity.to }),
    ...(activity.amountRao === undefined ? {} : { amountRao: activity.amountRao }),
    ...(activity.feeRao === undefined ? {} : { feeRao: activity.feeRao }),
    ...(activity.netuid === undefined ? {} : { netuid: activity.netuid }),
    ...(activity.hotkey === undefined ? {} : { hotkey: activity.hotkey }),
    ...(activity.alphaNalpha === undefined ? {} : { alphaNalpha: activity.alphaNalpha }),
    ...(activity.effectivePriceTao === undefined ? {} : { effectivePriceTao: activity.effectivePriceTao }),
    ...(activity.slippage === undefined ? {} : { slippage: activity.slippage }),
    source: activity.source,
    ...(activity.eventName === undefined ? {} : { eventName: activity.eventName }),
  };
}

/**
 * The ref's tx hash is an EVM transaction's own hash for activity read from an EVM transaction,
 * and for an EVM execution read natively (`Ethereum.Executed`, whose extrinsic hash is separate).
 */
const carriesEvmHash = (activity: AccountActivity): boolean =>
  activity.source === TransactionSource.TRANSACTION_SOURCE_EVM_TX || activity.eventName === "Ethereum.Executed";

/**
 * The account's transactions in chain order (block, position in block), newest first by default,
 * filtered, within a time window (default the last 90 days, at most 366). The cursor is the
 * (block time, chain position) of the last entry examined, so walking pages while new blocks land
 * yields each transaction exactly once: new ones only appear beyond the newest.
 */
export async function listTransactions(
  redis: Redis,
  request: ListTransactionsRequest,
  nowMs: number = Date.now(),
  history?: HistoryDb,
): Promise<ListTransactionsResponse> {
  const address = parseAddress(request.address);
  if (request.window?.blockStart !== undefined || request.window?.blockEnd !== undefined) {
    throw invalidArgument("INVALID_PARAMETER", "this route takes a time window (start, end), not block bounds", {
      parameter: "block_start",
    });
  }
  const window = resolveWindow(request.window, WINDOW, nowMs);
  if (window.kind !== "time") throw new Error("unreachable: block bounds refused above");
  const limit = pageLimitOf(request.page, TRANSACTIONS_PAGE);
  const order = orderOf(request.order, "desc");
  const filters: Filters = {
    types: new Set(request.types),
    direction: request.direction,
    netuids: new Set(request.netuids),
    counterparty:
      request.counterparty === undefined || request.counterparty === ""
        ? undefined
        : parseAddress(request.counterparty, "counterparty").publicKey,
    min: amountOf(request.minAmountRao, "min_amount_rao"),
    max: amountOf(request.maxAmountRao, "max_amount_rao"),
  };
  if (
    request.direction !== Direction.DIRECTION_UNSPECIFIED &&
    request.direction !== Direction.DIRECTION_IN &&
    request.direction !== Direction.DIRECTION_OUT
  ) {
    throw invalidArgument("INVALID_PARAMETER", "direction must be in, out or any", { parameter: "direction" });
  }
  const scope = queryScope([
    "accounts.transactions",
    address.publicKey,
    [...filters.types].sort(),
    filters.direction,
    [...filters.netuids].sort(),
    filters.counterparty ?? null,
    request.minAmountRao ?? null,
    request.maxAmountRao ?? null,
    request.window?.start ?? null,
    request.window?.end ?? null,
    order,
  ]);
  const after: ZsetEntry | undefined = request.page?.cursor
    ? (({ s, m }) => ({ score: s!, member: m! }))(
        decodeCursor(request.page.cursor, scope, { s: /^\d{1,12}$/, m: /^\d{12}-\d{6}-\d{7}\|[^\s]{1,300}$/ }),
      )
    : undefined;

  const scan: TransactionScan = {
    order,
    after,
    minScore: Math.ceil(window.startMs / 1_000),
    // Without an end, the window runs to the head (cut below), not to this server's clock: a
    // chain's clock may run ahead of it (a local chain building blocks faster than its slot time does).
    maxScoreExclusive: request.window?.end === undefined ? undefined : Math.ceil(window.endMs / 1_000),
    chunk: Math.min(500, limit + 1),
  };
  const collect = (entries: AsyncIterable<ScannedEntry>) => collectMatches(entries, filters, limit);
  const { asOf, collected } =
    history === undefined
      ? await collectInRedis(redis, address.publicKey, scan, collect)
      : await collectInHistory(redis, history, address.publicKey, scan, collect);
  const { found, examined, lastExamined } = collected;
  // The account's partition may be ahead of the head (the oldest block every partition delivered):
  // what it holds past as_of is left out, so the page is the account's activity as of that block.
  const headBlock = Number(asOf.blockNumber);
  const standing = found.filter((item) => blockOfMember(item.entry.member) <= headBlock);
  // Newest first, the scan went on past the newer entries; oldest first, only newer ones follow them.
  const cutAtHead = order === "asc" && standing.length < found.length;
  const page = standing.slice(0, limit);
  // A full page ends at its last item; a scan that ran out of budget ends where it stopped.
  const full = standing.length > limit;
  const hasMore = full || (!cutAtHead && (found.length > limit || examined >= SCAN_BUDGET));
  const position = full ? page.at(-1)?.entry : lastExamined;
  return {
    asOf,
    address,
    transactions: page.map((item) => item.transaction),
    page: {
      limit,
      hasMore,
      ...(hasMore && position !== undefined
        ? { nextCursor: encodeCursor(scope, { s: position.score, m: position.member }) }
        : {}),
    },
  };
}

type ScannedEntry = ZsetEntry & { detail: string | null };
type Collected = Awaited<ReturnType<typeof collectMatches>>;

/**
 * With a history database every transaction is read there (Redis keeps none of them), in one
 * snapshot at the head Redis names (historyAtHead.ts).
 */
async function collectInHistory(
  redis: Redis,
  history: HistoryDb,
  publicKey: string,
  scan: TransactionScan,
  collect: (entries: AsyncIterable<ScannedEntry>) => Promise<Collected>,
): Promise<{ asOf: AsOf; collected: Collected }> {
  const { asOf, value } = await readHistoryAtHead(redis, history, (db, head) =>
    collect(scanTransactions(db, publicKey, scan, head)),
  );
  return { asOf, collected: value };
}

/** Redis alone keeps the transactions: the head is read beside the scan, not before it (one round trip less). */
async function collectInRedis(
  redis: Redis,
  publicKey: string,
  scan: TransactionScan,
  collect: (entries: AsyncIterable<ScannedEntry>) => Promise<Collected>,
): Promise<{ asOf: AsOf; collected: Collected }> {
  const bounds = {
    min: String(scan.minScore),
    max: scan.maxScoreExclusive === undefined ? "+inf" : `(${scan.maxScoreExclusive}`,
  };
  const { order, after, chunk } = scan;
  const entries = scanZset(redis, accountsKeys.txs(publicKey), {
    order,
    ...(after === undefined ? {} : { after }),
    ...bounds,
    chunk,
  });
  const detailsKey = accountsKeys.tx(publicKey);
  const [asOf, collected] = await Promise.all([
    readAsOf(redis, accountsKeys.head),
    readModel(() => collect(withDetails(entries, (members) => redis.hmget(detailsKey, ...members), chunk))),
  ]);
  return { asOf, collected };
}

/** The scan's entries with their details, fetched a chunk of members at a time. */
async function* withDetails(
  scan: AsyncIterable<ZsetEntry>,
  details: (members: string[]) => Promise<Array<string | null>>,
  chunk: number,
): AsyncGenerator<ScannedEntry> {
  let pending: ZsetEntry[] = [];
  const flush = async function* () {
    const loaded = await details(pending.map((entry) => entry.member));
    yield* pending.map((entry, index) => ({ ...entry, detail: loaded[index] ?? null }));
    pending = [];
  };
  for await (const entry of scan) {
    pending.push(entry);
    if (pending.length >= chunk) yield* flush();
  }
  if (pending.length > 0) yield* flush();
}

/**
 * Walks the scan until limit + 1 matches (to know there is more) or the scan budget; a sparse
 * filter ends with a short page and the position it stopped at.
 */
async function collectMatches(scan: AsyncIterable<ScannedEntry>, filters: Filters, limit: number) {
  const found: Array<{ entry: ZsetEntry; transaction: Transaction }> = [];
  let examined = 0;
  let lastExamined: ZsetEntry | undefined;
  for await (const entry of scan) {
    examined += 1;
    lastExamined = { score: entry.score, member: entry.member };
    if (entry.detail !== null) {
      const activity = AccountActivity.decode(Buffer.from(entry.detail, "base64"));
      if (matches(activity, filters)) found.push({ entry: lastExamined, transaction: transactionOf(activity) });
    }
    if (found.length > limit || examined >= SCAN_BUDGET) break;
  }
  return { found, examined, lastExamined };
}

/** A transaction member's block: its first 12 digits (`<block:12>-<txIndex:6>-<logIndex+1:7>|...`). */
const blockOfMember = (member: string): number => Number(member.slice(0, 12));
