import { AppError, unavailable } from "@platform/errors";
import { type AsOf, Finality } from "@platform/proto/common/v1/common";
import type { Redis } from "@platform/store";

/**
 * A projection head stored as a Redis hash `{chainId, blockNumber, blockHash, timestamp}`
 * (timestamp RFC 3339, the block's own time) as the AsOf of an answer. Undefined when the hash is
 * absent or incomplete (the projection has seen no block yet).
 */
export function asOfFromHash(hash: Record<string, string>): AsOf | undefined {
  const { chainId, blockNumber, blockHash, timestamp } = hash;
  if (chainId === undefined || blockNumber === undefined || blockHash === undefined || timestamp === undefined)
    return undefined;
  if (!/^\d+$/.test(chainId) || !/^\d+$/.test(blockNumber)) return undefined;
  return { chainId, blockNumber, blockHash, timestamp, finality: Finality.FINALITY_LATEST };
}

/** The head `as_of` of a projection; READ_MODEL_UNAVAILABLE (503) while it has seen no block. */
export async function readAsOf(redis: Redis, headKey: string): Promise<AsOf> {
  const asOf = asOfFromHash(await readModel(() => redis.hgetall(headKey)));
  if (asOf === undefined)
    throw unavailable("READ_MODEL_UNAVAILABLE", "the read model has not seen a block yet; retry shortly");
  return asOf;
}

/**
 * Runs a Redis read; a Redis failure becomes READ_MODEL_UNAVAILABLE (503) rather than INTERNAL.
 * AppErrors thrown inside pass through unchanged.
 */
export async function readModel<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw unavailable("READ_MODEL_UNAVAILABLE", "the read model could not be read; retry shortly", undefined, error);
  }
}
