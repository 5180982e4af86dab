import { randomUUID } from "node:crypto";
import type { ProjectionBatch } from "@platform/bus";
import type { Logger } from "@platform/log";
import type { CommitReplication } from "@platform/projection";
import { type Signals, subjects } from "@platform/signals";
import { type Redis, unwatch } from "@platform/store";

type Multi = ReturnType<Redis["multi"]>;

/** Where a projection announces its commits: `readmodel.changed.<projection>`. */
export interface ChangeSignal {
  signals: Signals | undefined;
  projection: "market" | "subnets";
  /** Waited for after EXEC, before the signal (REDIS_WAIT_REPLICAS); none: the signal goes out at once. */
  replication?: CommitReplication | undefined;
}

/**
 * Applies one batch exactly once: watches the partition's stored offset and checks the batch
 * continues from it, lets `prepare` watch and read what it needs and queue its writes on a MULTI,
 * then stores the batch's last offset and a new version token (libs/read-models versions.ts) in the
 * same MULTI/EXEC. A watched key changed meanwhile (a rebalance overlap) makes EXEC fail, and the
 * batch is read again.
 *
 * Once EXEC succeeds (and, with `signal.replication`, once the replicas have it),
 * `readmodel.changed.<projection>` goes out with `{projection, version}` (the
 * token just stored): readers that keep answers (the gateway's conditional reads) drop those read
 * from this projection. A signal is a hint: one lost (NATS away) only leaves a reader's answer
 * standing until its own Cache-Control runs out, and a failed publish never fails the commit.
 */
export async function commitBatch(
  redis: Redis,
  batch: ProjectionBatch,
  keys: { offset: string; version: string },
  log: Logger,
  prepare: () => Promise<(multi: Multi) => void>,
  signal?: ChangeSignal,
  maxAttempts = 5,
): Promise<void> {
  const offsetKey = keys.offset;
  for (let attempt = 1; ; attempt += 1) {
    await redis.watch(offsetKey);
    let executed = false;
    try {
      const stored = (await redis.get(offsetKey)) ?? undefined;
      if (stored !== batch.previousOffset) {
        throw new Error(
          `stored offset of ${batch.topic}/${batch.partition} is ${stored ?? "none"}, the batch continues from ${batch.previousOffset ?? "none"}`,
        );
      }
      const queue = await prepare();
      const multi = redis.multi();
      queue(multi);
      multi.set(offsetKey, batch.lastOffset);
      const version = randomUUID();
      multi.set(keys.version, version);
      executed = true;
      const result = await multi.exec();
      if (result !== null) {
        const failed = result.find(([error]) => error !== null);
        if (failed) throw new Error("a write of the batch failed", { cause: failed[0] });
        if (signal !== undefined) {
          await signal.replication?.settle(redis, offsetKey);
          announce(signal, version, log);
        }
        return;
      }
    } finally {
      if (!executed) await unwatch(redis).catch(() => undefined);
    }
    if (attempt >= maxAttempts)
      throw new Error(`batch of ${batch.topic}/${batch.partition} kept conflicting after ${attempt} attempts`);
    log.warn(
      { topic: batch.topic, partition: batch.partition, attempt },
      "watched keys changed during the batch; applying it again",
    );
    await batch.heartbeat().catch(() => undefined);
  }
}

function announce({ signals, projection }: ChangeSignal, version: string, log: Logger): void {
  try {
    signals?.publish(subjects.readModelChanged(projection), { projection, version });
  } catch (error) {
    log.warn({ err: error, projection }, "could not publish the change signal");
  }
}
