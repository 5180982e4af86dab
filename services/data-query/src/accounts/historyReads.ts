import { type HistoryDb, type HistoryTransaction, historyTables } from "@platform/history";
import { historyRead } from "../shared/historyRead.js";
import type { Order } from "../shared/page.js";
import type { ZsetEntry } from "../shared/zsetScan.js";

/**
 * The accounts history in PostgreSQL (history.account_points and account_transactions, written by
 * the projector's accounts projection with the same members and scores as the Redis zsets), read
 * in the zsets' (score, member) order so that answers and cursors are those of the Redis reads.
 */

/** The members of the account's points the balance history needs: the one before the window, those in it, the first. */
export async function pointsForWindow(
  db: HistoryDb | HistoryTransaction,
  publicKey: string,
  startS: number,
  endS: number,
): Promise<{ before: string[]; inside: string[]; first: string[] }> {
  const table = historyTables.accountPoints;
  return historyRead(async () => {
    const [before, inside, first] = await Promise.all([
      db.unsafe(
        `select member from ${table} where account = $1 and score < $2 order by score desc, member desc limit 1`,
        [publicKey, startS],
      ),
      db.unsafe(
        `select member from ${table} where account = $1 and score >= $2 and score < $3 order by score, member`,
        [publicKey, startS, endS],
      ),
      db.unsafe(`select member from ${table} where account = $1 order by score, member limit 1`, [publicKey]),
    ]);
    const members = (rows: Iterable<Record<string, unknown>>) => [...rows].map((row) => row.member as string);
    return { before: members(before), inside: members(inside), first: members(first) };
  });
}

/** The member of the account's newest point at or before `block`, if any. */
export async function pointAtOrBefore(db: HistoryDb, publicKey: string, block: number): Promise<string | undefined> {
  const [row] = await historyRead(() =>
    db.unsafe(
      `select member from ${historyTables.accountPoints} where account = $1 and block <= $2 order by block desc limit 1`,
      [publicKey, block],
    ),
  );
  return row?.member as string | undefined;
}

export interface TransactionScan {
  order: Order;
  after?: ZsetEntry | undefined;
  /** Inclusive lower score bound (block time in seconds). */
  minScore: number;
  /** Exclusive upper score bound; none: to the newest. */
  maxScoreExclusive: number | undefined;
  chunk: number;
}

/**
 * Walks the account's transactions in (score, member) order from an exclusive position, a chunk
 * per round trip, with each transaction's detail (base64 AccountActivity).
 */
export async function* scanTransactions(
  db: HistoryDb | HistoryTransaction,
  publicKey: string,
  scan: TransactionScan,
): AsyncGenerator<ZsetEntry & { detail: string }> {
  const ascending = scan.order === "asc";
  let position = scan.after;
  for (;;) {
    const conditions = ["account = $1", "score >= $2", "($3::bigint is null or score < $3)"];
    const values: unknown[] = [publicKey, scan.minScore, scan.maxScoreExclusive ?? null];
    if (position !== undefined) {
      conditions.push(
        ascending ? "(score, member) > ($4::bigint, $5::text)" : "(score, member) < ($4::bigint, $5::text)",
      );
      values.push(position.score, position.member);
    }
    const direction = ascending ? "asc" : "desc";
    const rows = await historyRead(() =>
      db.unsafe(
        `select score::text as score, member, detail from ${historyTables.accountTransactions}
         where ${conditions.join(" and ")} order by score ${direction}, member ${direction} limit ${scan.chunk}`,
        values as never,
      ),
    );
    for (const row of rows)
      yield { score: row.score as string, member: row.member as string, detail: row.detail as string };
    const last = rows.at(-1);
    if (last === undefined || rows.length < scan.chunk) return;
    position = { score: last.score as string, member: last.member as string };
  }
}
