import { setTimeout as sleep } from "node:timers/promises";
import { TOPICS } from "@platform/proto/topics";
import type { Redis } from "@platform/store";
import type { PublishedEvent } from "./eventPublisher.js";
import { tcKeys } from "./keys.js";

const POLL_MS = 20;

/**
 * Read-your-writes for Accept: waits until the projection's stored offset of the event's partition
 * reaches the event (whichever tc replica runs that partition), so a status or gate read right
 * after the answer sees the acceptance. Resolves false at the deadline instead of failing: the
 * event is in Kafka, the truth, and the projection will apply it.
 */
export async function awaitProjection(redis: Redis, published: PublishedEvent, deadline: number): Promise<boolean> {
  const key = tcKeys.offset(TOPICS.tcAcceptances.name, published.partition);
  const target = BigInt(published.offset);
  for (;;) {
    const stored = await redis.get(key).catch(() => null);
    if (stored !== null && BigInt(stored) >= target) return true;
    if (Date.now() + POLL_MS >= deadline) return false;
    await sleep(POLL_MS);
  }
}
