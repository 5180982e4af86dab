import { type HistoryDb, historyTables } from "@platform/history";
import { historyRead } from "../shared/historyRead.js";
import type { Order } from "../shared/page.js";
import type { ZsetEntry } from "../shared/zsetScan.js";
import { assertHeadStands, type HeadCheck, headStandsSql, headStandsValues } from "./historyAtHead.js";

/**
 * The accounts history in PostgreSQL (history.account_points and account_transactions, written by
 * the projector's accounts projection with the same members and scores as the Redis zsets), read
 * in the zsets' (score, member) order so that answers and cursors are those of the Redis reads.
 */

/**
 * The members of the account's points the balance history needs: the one before the window, those
 * in it, the first. One statement, so one snapshot, which also checks that the head stands
 * (historyAtHead.ts): HeadNotStanding where it does not.
 */
export async function pointsForWindow(
  db: HistoryDb,
  publicKey: string,
  startS: number,
  endS: number,
  head: HeadCheck,
): Promise<{ before: string[]; inside: string[]; first: string[] }> {
  const table = historyTables.accountPoints;
  const rows = await historyRead(() =>
    db.unsafe(
      `select 'missing' as part, 0::bigint as n, missing::text as member from (${headStandsSql(4)}) head
       union all (select 'before', 0, member from ${table} where account = $1 and score < $2
                  order by score desc, member desc limit 1)
       union all (select 'inside', row_number() over (order by score, member), member from ${table}
                  where account = $1 and score >= $2 and score < $3 order by score, member)
       union all (select 'first', 0, member from ${table} where account = $1 order by score, member limit 1)`,
      [publicKey, startS, endS, ...headStandsValues(head)] as never,
    ),
  );
  const part = (name: string) =>
    rows
      .filter((row) => row.part === name)
      .sort((a, b) => Number(a.n) - Number(b.n))
      .map((row) => row.member as string);
  assertHeadStands(part("missing")[0]);
  return { before: part("before"), inside: part("inside"), first: part("first") };
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
 * per round trip, with each transaction's detail (base64 AccountActivity). Each chunk's statement
 * also checks that the head stands (historyAtHead.ts): HeadNotStanding where it does not.
 */
export async function* scanTransactions(
  db: HistoryDb,
  publicKey: string,
  scan: TransactionScan,
  head: HeadCheck,
): AsyncGenerator<ZsetEntry & { detail: string }> {
  const ascending = scan.order === "asc";
  let position = scan.after;
  for (;;) {
    const conditions = ["account = $1", "score >= $2", "($3::bigint is null or score < $3)"];
    const values: unknown[] = [publicKey, scan.minScore, scan.maxScoreExclusive ?? null, ...headStandsValues(head)];
    if (position !== undefined) {
      conditions.push(
        ascending ? "(score, member) > ($7::bigint, $8::text)" : "(score, member) < ($7::bigint, $8::text)",
      );
      values.push(position.score, position.member);
    }
    const direction = ascending ? "asc" : "desc";
    // One row at least (the check's), the chunk's rows beside it.
    const rows = await historyRead(() =>
      db.unsafe(
        `select head.missing, t.score, t.member, t.detail from (${headStandsSql(4)}) head
         left join lateral (
           select score::text as score, member, detail from ${historyTables.accountTransactions}
           where ${conditions.join(" and ")} order by score ${direction}, member ${direction} limit ${scan.chunk}
         ) t on true`,
        values as never,
      ),
    );
    assertHeadStands(rows[0]?.missing);
    const found = rows.filter((row) => row.member !== null);
    for (const row of found)
      yield { score: row.score as string, member: row.member as string, detail: row.detail as string };
    const last = found.at(-1);
    if (last === undefined || found.length < scan.chunk) return;
    position = { score: last.score as string, member: last.member as string };
  }
}
