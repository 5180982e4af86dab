import { PlatformError, unavailable } from "@platform/errors";
import { type HistoryDb, historyTables } from "@platform/history";
import type { AsOf } from "@platform/proto/common/v1/common";
import { TOPICS } from "@platform/proto/topics";
import { accountsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readAsOf } from "../shared/asOf.js";

/**
 * The accounts projection commits each batch to PostgreSQL before Redis (libs/projection), and the
 * head an answer names is read in Redis. The history may so stand a commit ahead of the head: the
 * blocks it holds past the head are cut by the readers, but after a reorganisation it may also
 * have lost the head's own block, and with it what the account did there (an answer naming the
 * abandoned block without its transfer).
 *
 * So each statement that reads an account's history also checks, in its own snapshot, that the
 * head's block stands in every partition (`headStandsSql`), and says so in its rows. Where the
 * head's block stands, the account's rows at or below it are that block's chain's: they change
 * only by a reorganisation below it, which removes the block itself. Where it does not, the read
 * throws HeadNotStanding and the head is read again (Redis follows within the batch's commit).
 * One statement per chunk and no transaction: a BEGIN, a separate check and a COMMIT made the first
 * page 2.7 times slower (bench/store/transactionsAtHead.ts).
 */

export interface HeadCheck {
  blockNumber: string;
  blockHash: string;
  partitions: number[];
}

/** A statement found the head's block missing from a partition: read the head again. */
export class HeadNotStanding extends PlatformError {
  constructor() {
    super("the head's block does not stand in the accounts history", { code: "HEAD_NOT_STANDING", retryable: true });
  }
}

/**
 * SQL of one row (`missing`: how many partitions lack the head's block), its parameters from
 * `$first` on: the head's number, its hash and the partitions. A partition whose delivered blocks
 * reach down to the head's height must hold the head's block; one whose oldest kept block is above
 * the head (far ahead of the others in a catch-up) cannot tell and is not asked: a reorganisation
 * that deep is beyond the blocks kept (BLOCKS_KEPT).
 */
export function headStandsSql(first: number): string {
  const [number, hash, partitions] = [`$${first}`, `$${first + 1}`, `$${first + 2}`];
  const blocks = historyTables.accountBlocks;
  return `select count(*)::int as missing from unnest(${partitions}::int[]) as p
    where exists (select 1 from ${blocks} b where b.partition = p and b.block <= ${number}::bigint)
      and not exists (select 1 from ${blocks} b
                      where b.partition = p and b.block = ${number}::bigint and (b.member::json ->> 'blockHash') = ${hash})`;
}

/** The parameters headStandsSql(first) takes, in order. */
export const headStandsValues = (head: HeadCheck): unknown[] => [head.blockNumber, head.blockHash, head.partitions];

/** Throws HeadNotStanding unless the statement's `missing` column says the head stands. */
export function assertHeadStands(missing: unknown): void {
  if (Number(missing) !== 0) throw new HeadNotStanding();
}

export interface HistoryAtHeadOptions {
  /** chain.network.v1's partition count (the head waits for every partition); the topic catalog's by default. */
  partitions?: number;
  /** Reads of the head before giving up with READ_MODEL_UNAVAILABLE; 40 by default, 25 ms apart. */
  attempts?: number;
}

const RETRY_MS = 25;

/**
 * Runs `read` at the head Redis names (its statements check it stands: headStandsSql), again with
 * the head read anew while a statement finds it does not, and answers with that head as as_of.
 */
export async function readHistoryAtHead<T>(
  redis: Redis,
  history: HistoryDb,
  read: (history: HistoryDb, head: HeadCheck, asOf: AsOf) => Promise<T>,
  options: HistoryAtHeadOptions = {},
): Promise<{ asOf: AsOf; value: T }> {
  const partitions = Array.from({ length: options.partitions ?? TOPICS.chainNetwork.partitions }, (_, p) => p);
  const attempts = options.attempts ?? 40;
  for (let attempt = 1; ; attempt += 1) {
    const asOf = await readAsOf(redis, accountsKeys.head);
    try {
      const value = await read(history, { blockNumber: asOf.blockNumber, blockHash: asOf.blockHash, partitions }, asOf);
      return { asOf, value };
    } catch (error) {
      if (!(error instanceof HeadNotStanding)) throw error;
    }
    if (attempt >= attempts)
      throw unavailable(
        "READ_MODEL_UNAVAILABLE",
        "the accounts history is applying a chain reorganisation; retry shortly",
      );
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}
