import { unavailable } from "@platform/errors";
import { type HistoryDb, type HistoryTransaction, historyTables } from "@platform/history";
import type { AsOf } from "@platform/proto/common/v1/common";
import { TOPICS } from "@platform/proto/topics";
import { accountsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readAsOf } from "../shared/asOf.js";
import { historyRead } from "../shared/historyRead.js";

/**
 * The accounts projection commits each batch to PostgreSQL before Redis (libs/projection), and the
 * head an answer names is read in Redis. The history may so stand a commit ahead of the head: the
 * blocks it holds past the head are cut by the readers, but after a reorganisation it may also
 * have lost the head's own block, and with it what the account did there (an answer naming the
 * abandoned block without its transfer). So an account's history is read in one snapshot in which
 * the head's block still stands in every partition; where it does not, the head is read again:
 * Redis follows within the batch's commit.
 */

export interface HistoryAtHeadOptions {
  /** chain.network.v1's partition count (the head waits for every partition); the topic catalog's by default. */
  partitions?: number;
  /** Reads of the head before giving up with READ_MODEL_UNAVAILABLE; 40 by default, 25 ms apart. */
  attempts?: number;
}

const RETRY_MS = 25;

/**
 * The partitions whose delivered blocks reach down to the head's height but do not hold the head's
 * block: a reorganisation there is in PostgreSQL and not yet in Redis. A partition whose oldest
 * kept block is above the head (one far ahead of the others in a catch-up) cannot tell and is not
 * asked: a reorganisation that deep is beyond the blocks kept (BLOCKS_KEPT).
 */
const HEAD_MISSING_SQL = `select p from unnest($3::int[]) as p
  where exists (select 1 from ${historyTables.accountBlocks} b where b.partition = p and b.block <= $1)
    and not exists (select 1 from ${historyTables.accountBlocks} b
                    where b.partition = p and b.block = $1 and (b.member::json ->> 'blockHash') = $2)`;

/**
 * Runs `read` over the history database in one read-only snapshot at the head Redis names, and
 * answers with that head as the answer's as_of.
 */
export async function readHistoryAtHead<T>(
  redis: Redis,
  history: HistoryDb,
  read: (tx: HistoryTransaction, asOf: AsOf) => Promise<T>,
  options: HistoryAtHeadOptions = {},
): Promise<{ asOf: AsOf; value: T }> {
  const partitions = Array.from({ length: options.partitions ?? TOPICS.chainNetwork.partitions }, (_, p) => p);
  const attempts = options.attempts ?? 40;
  for (let attempt = 1; ; attempt += 1) {
    const asOf = await readAsOf(redis, accountsKeys.head);
    const answer = await historyRead(() =>
      history.begin("read only isolation level repeatable read", async (tx) => {
        const missing = await tx.unsafe(HEAD_MISSING_SQL, [asOf.blockNumber, asOf.blockHash, partitions]);
        return missing.length > 0 ? undefined : { value: await read(tx, asOf) };
      }),
    );
    if (answer !== undefined) return { asOf, value: answer.value };
    if (attempt >= attempts)
      throw unavailable(
        "READ_MODEL_UNAVAILABLE",
        "the accounts history is applying a chain reorganisation; retry shortly",
      );
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}
