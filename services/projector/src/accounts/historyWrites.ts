import type { AccountsChange } from "./decode.js";

/** A row of history.account_points or history.account_transactions (libs/history migrations). */
export interface PointRow {
  account: string;
  block: string;
  score: number;
  member: string;
}

export interface TransactionRow extends PointRow {
  detail: string;
}

/** Rows whose member starts with `prefix` (a removed block's fork), at one account and block. */
export interface PrefixDelete {
  account: string;
  block: string;
  prefix: string;
}

/** What a batch does to the accounts history in PostgreSQL: deletes run before upserts. */
export interface AccountsHistoryWrites {
  points: Map<string, PointRow>;
  pointDeletes: PrefixDelete[];
  transactions: Map<string, TransactionRow>;
  transactionDeletes: PrefixDelete[];
  blocksSeen: Array<{ partition: number; block: string; member: string }>;
  blocksRemoved: Array<{ partition: number; member: string }>;
}

/** A member's block: members and prefixes start with the zero-padded block number (accounts/members.ts). */
const blockOf = (memberOrPrefix: string): string => String(BigInt(memberOrPrefix.slice(0, 12)));

/**
 * Folds a batch's account changes, in order, into the rows to write (pure). The same rules as the
 * Redis fold (fold.ts): one balance point per account and block, replaced by a later reading of the
 * block; a removal takes out the point and the transactions of the removed block's fork. Within a
 * batch a removal drops the rows queued before it that it matches, and is also sent as a delete
 * for rows stored by earlier batches; rows queued after it are written after it.
 */
export function accountsHistoryWrites(changes: readonly AccountsChange[]): AccountsHistoryWrites {
  const writes: AccountsHistoryWrites = {
    points: new Map(),
    pointDeletes: [],
    transactions: new Map(),
    transactionDeletes: [],
    blocksSeen: [],
    blocksRemoved: [],
  };
  const putPoint = (account: string, score: number, member: string) => {
    const block = blockOf(member);
    writes.points.set(`${account}\u0000${block}`, { account, block, score, member });
  };
  for (const change of changes) {
    if (change.kind === "activity") {
      if (change.point !== undefined) putPoint(change.account, change.score, change.point);
      writes.transactions.set(`${change.account}\u0000${change.tx}`, {
        account: change.account,
        block: blockOf(change.tx),
        score: change.score,
        member: change.tx,
        detail: change.detail,
      });
    } else if (change.kind === "point") {
      putPoint(change.account, change.score, change.point);
    } else if (change.kind === "removed") {
      const block = blockOf(change.pointPrefix);
      const pointKey = `${change.account}\u0000${block}`;
      if (writes.points.get(pointKey)?.member.startsWith(change.pointPrefix)) writes.points.delete(pointKey);
      writes.pointDeletes.push({ account: change.account, block, prefix: change.pointPrefix });
      const txPrefix = change.txPrefix;
      if (txPrefix === undefined) continue;
      for (const [key, row] of writes.transactions)
        if (row.account === change.account && row.member.startsWith(txPrefix)) writes.transactions.delete(key);
      writes.transactionDeletes.push({ account: change.account, block: blockOf(txPrefix), prefix: txPrefix });
    } else if (change.kind === "block") {
      writes.blocksSeen.push({ partition: change.partition, block: change.number, member: change.member });
    } else {
      writes.blocksRemoved.push({ partition: change.partition, member: change.member });
    }
  }
  return writes;
}

/** The lowest and highest block the upserts write (the partitions they need), or undefined. */
export function blockRange(rows: Iterable<PointRow>): { first: bigint; last: bigint } | undefined {
  let range: { first: bigint; last: bigint } | undefined;
  for (const row of rows) {
    const block = BigInt(row.block);
    if (range === undefined) range = { first: block, last: block };
    else {
      if (block < range.first) range.first = block;
      if (block > range.last) range.last = block;
    }
  }
  return range;
}
