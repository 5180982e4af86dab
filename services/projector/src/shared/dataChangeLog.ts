import type { ChainRef } from "@platform/proto/common/v1/common";
import { dataChangeLog } from "@platform/read-models";
import type { Redis } from "@platform/store";

type Multi = ReturnType<Redis["multi"]>;

/** What one commit of a data projection appends to the data change log (libs/read-models changeLogs.ts). */
export interface DataChanges {
  readModel: "market" | "subnets";
  /** The newest block the commit folded in: the read model's new `as_of`; none when it folded no block. */
  head: ChainRef | undefined;
  /** New pool snapshots, as PoolSnapshot bytes (base64, as the series keep them). */
  pools?: readonly string[];
  /** New price rounds, as PriceObserved bytes (base64). */
  prices?: readonly string[];
}

/** The newest of the refs seen, by block number: a batch's head. */
export function newestRef(refs: Iterable<ChainRef | undefined>): ChainRef | undefined {
  let newest: ChainRef | undefined;
  for (const ref of refs)
    if (ref !== undefined && (newest === undefined || Number(ref.blockNumber) > Number(newest.blockNumber)))
      newest = ref;
  return newest;
}

/** Queues the commit's change-log entries on its MULTI, after its writes: they land with them or not at all. */
export function queueDataChanges(multi: Multi, changes: DataChanges): void {
  const { key, maxLength, fields } = dataChangeLog;
  const append = (...entry: (string | Buffer)[]) => multi.xadd(key, "MAXLEN", "~", maxLength, "*", ...entry);
  for (const pool of changes.pools ?? []) append(fields.kind, "pool", fields.bytes, Buffer.from(pool, "base64"));
  for (const price of changes.prices ?? []) append(fields.kind, "price", fields.bytes, Buffer.from(price, "base64"));
  const head = changes.head;
  if (head !== undefined)
    append(
      fields.kind,
      "head",
      fields.readModel,
      changes.readModel,
      fields.chainId,
      head.chainId,
      fields.blockNumber,
      head.blockNumber,
      fields.blockHash,
      head.blockHash,
      fields.timestamp,
      head.blockTimestamp,
    );
}
