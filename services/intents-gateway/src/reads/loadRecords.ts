import type { AsOf } from "@platform/proto/common/v1/common";
import { IntentRecord } from "@platform/proto/intents/v1/intents";
import { intentsReadKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { headAsOf } from "./headAsOf.js";
import { mirrorUnavailable } from "./mirrorErrors.js";

/** Records at the given keys, in order, in one round trip; undefined where a key is absent. */
export async function loadRecords(redis: Redis, keys: readonly string[]): Promise<Array<IntentRecord | undefined>> {
  if (keys.length === 0) return [];
  const values = await redis.mgetBuffer(...keys).catch((error: unknown) => {
    throw mirrorUnavailable(error);
  });
  return values.map((value) => (value === null ? undefined : IntentRecord.decode(value)));
}

/** The mirror's current head of each chain, by chain id (chains without a head are left out). */
export async function loadHeads(redis: Redis, chainIds: readonly string[]): Promise<Map<string, AsOf>> {
  const unique = [...new Set(chainIds)];
  const heads = new Map<string, AsOf>();
  if (unique.length === 0) return heads;
  const pipeline = redis.pipeline();
  for (const chainId of unique) pipeline.hgetall(intentsReadKeys.head(chainId));
  const results = await pipeline.exec().catch((error: unknown) => {
    throw mirrorUnavailable(error);
  });
  unique.forEach((chainId, index) => {
    const [error, value] = results?.[index] ?? [new Error("no reply"), null];
    if (error) throw mirrorUnavailable(error);
    const asOf = headAsOf(chainId, (value ?? {}) as Record<string, string>);
    if (asOf !== undefined) heads.set(chainId, asOf);
  });
  return heads;
}

/**
 * Records with `asOf` brought up to the mirror's current head of each chain they involve: a
 * record is rewritten only when its order changes, but the mirror keeps reading, and "nothing
 * happened up to block N" is what a status reader needs to know.
 */
export async function withCurrentHeads(redis: Redis, records: readonly IntentRecord[]): Promise<IntentRecord[]> {
  const chainsOf = (record: IntentRecord) => [
    record.originChainId,
    ...(record.destinationChainId === undefined ? [] : [record.destinationChainId]),
  ];
  const heads = await loadHeads(redis, records.flatMap(chainsOf));
  return records.map((record) => {
    const chains = chainsOf(record);
    const asOf = chains
      .map((chainId) => heads.get(chainId) ?? record.asOf.find((entry) => entry.chainId === chainId))
      .filter((entry) => entry !== undefined);
    return { ...record, asOf };
  });
}
