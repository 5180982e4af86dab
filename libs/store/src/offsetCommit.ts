import { setTimeout as sleep } from "node:timers/promises";
import type { ChainableCommander } from "ioredis";
import type { Redis } from "./createRedis.js";
import { unwatch } from "./unwatch.js";

/** Where a projection's batch sits in its partition: the offset it continues from, and its last. */
export interface OffsetStep {
  offsetKey: string;
  /** The stored offset the batch continues from; undefined for the partition's first batch. */
  previousOffset: string | undefined;
  lastOffset: string;
  /** Names the partition in errors (`topic/partition`). */
  partition: string;
}

/**
 * Writes one projection batch exactly once: `write` queues the batch's changes on a MULTI, which
 * also stores `lastOffset`, and it executes only if the stored offset still is `previousOffset` and
 * neither it nor `watch` changed meanwhile (WATCH). Otherwise it throws, and the consumer reloads
 * the offset (libs/bus projectionConsumer): a member that lost the partition in a rebalance, or a
 * Redis that lost the projection, never applies a batch twice or out of order.
 *
 * `write` may read through `redis` first (MULTI is only sent at exec). `redis` must be a
 * connection of its own: WATCH belongs to the connection, and another caller's MULTI/EXEC on a
 * shared one would clear it.
 */
export async function commitAtOffset(
  redis: Redis,
  step: OffsetStep,
  write: (multi: ChainableCommander) => Promise<void> | void,
  watch: readonly string[] = [],
): Promise<void> {
  await redis.watch(step.offsetKey, ...watch);
  let executed = false;
  try {
    const stored = (await redis.get(step.offsetKey)) ?? undefined;
    if (stored !== step.previousOffset) {
      throw new Error(
        `stored offset of ${step.partition} is ${stored ?? "none"}, the batch continues from ${step.previousOffset ?? "none"}`,
      );
    }
    const multi = redis.multi();
    await write(multi);
    multi.set(step.offsetKey, step.lastOffset);
    const results = await multi.exec();
    executed = true;
    if (results === null) throw new Error(`the offset of ${step.partition} changed during the batch`);
    const failed = results.find(([error]) => error !== null);
    if (failed) throw new Error(`projection write failed for ${step.partition}`, { cause: failed[0] });
  } finally {
    if (!executed) await unwatch(redis).catch(() => undefined);
  }
}

const POLL_MS = 20;

/**
 * Read-your-writes after publishing an event: waits until the projection's stored offset of the
 * event's partition reaches the event (whichever replica runs that partition). Resolves false at
 * the deadline instead of failing: the event is in Kafka, the truth, and the projection will
 * apply it.
 */
export async function awaitStoredOffset(
  redis: Redis,
  offsetKey: string,
  offset: string,
  deadline: number,
): Promise<boolean> {
  const target = BigInt(offset);
  for (;;) {
    const stored = await redis.get(offsetKey).catch(() => null);
    if (stored !== null && BigInt(stored) >= target) return true;
    if (Date.now() + POLL_MS >= deadline) return false;
    await sleep(POLL_MS);
  }
}
