import { migrateTopics, runProjectionConsumer, topicCatalog, type Kafka, type ProjectionConsumer } from "@platform/bus";
import type { Logger } from "@platform/log";
import { TOPICS } from "@platform/proto/topics";
import type { DependencyCheck } from "@platform/runtime";
import type { Redis } from "@platform/store";
import { authKeys } from "./keys.js";
import { registryProjection } from "./projection.js";

export const REGISTRY_GROUP_ID = "auth-registry";

export interface RegistrySupervisorOptions {
  kafka: Kafka;
  /** For the marker and offset checks. */
  redis: Redis;
  /** A connection of the projection's own (its WATCH must not share a connection). */
  projectionRedis: Redis;
  log: Logger;
  /** Replication of auth.api-keys.v1 when the migration creates it. */
  replicationFactor: number;
  /** How often the marker is checked once the registry is complete; 2 s by default. */
  intervalMs?: number;
}

/** Whether the Redis registry can be trusted to answer "no such key". */
export interface RegistryStatus {
  /** True once the projection runs and has applied everything the topic held when it started. */
  complete(): boolean;
  /** Asks for a check now (a caller found the marker missing), instead of at the next interval. */
  poke(): void;
}

export interface RegistrySupervisor extends RegistryStatus {
  /** Readiness: the registry is complete. */
  check: DependencyCheck;
  stop(): Promise<void>;
}

/** While a rebuild catches up, its progress is checked this often. */
const CATCH_UP_POLL_MS = 100;

/**
 * Keeps the Redis registry a live projection of `auth.api-keys.v1`, whatever happens to Kafka or
 * Redis. Every `intervalMs` (or at once when poked) it:
 *
 * 1. creates the topic once (migrateTopics, auth's topic only), retrying while Kafka is away;
 * 2. checks the marker `auth:registry`. Redis losing it (FLUSHALL, a fresh server) means the
 *    registry is gone while the running consumer still believes its positions: it is stopped,
 *    the marker set again, and a new consumer started, which finds no stored offsets and replays
 *    the topic from offset 0. (Other auth replicas see a rebalance when this one rejoins, which
 *    makes their consumers reload their offsets too.)
 * 3. starts the consumer if none runs (first start, or a start that failed while Kafka was away);
 * 4. after a start, notes the topic's end offsets and reports the registry complete once the
 *    stored offsets reach them. Until then a missing key may just not be replayed yet, so
 *    IssueToken answers UNAVAILABLE rather than a 401 that would count towards a lockout.
 */
export function superviseRegistry(options: RegistrySupervisorOptions): RegistrySupervisor {
  const { kafka, redis, log } = options;
  const intervalMs = options.intervalMs ?? 2_000;
  const projection = registryProjection(options.projectionRedis, log);
  const topic = TOPICS.authApiKeys.name;
  let consumer: ProjectionConsumer | undefined;
  let migrated = false;
  /** The last offset per partition the topic held when the consumer started; cleared once reached. */
  let catchUpTo: Map<number, bigint> | undefined;
  let complete = false;
  let stopped = false;
  let wake: (() => void) | undefined;

  const migrate = async (): Promise<void> => {
    const admin = kafka.admin();
    try {
      await admin.connect();
      const specs = topicCatalog({ replicationFactor: options.replicationFactor }).filter((spec) => spec.name === topic);
      await migrateTopics(admin, specs, { logger: log });
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  };

  const endOffsets = async (): Promise<Map<number, bigint>> => {
    const admin = kafka.admin();
    try {
      await admin.connect();
      const offsets = await admin.fetchTopicOffsets(topic);
      return new Map(offsets.filter((entry) => BigInt(entry.high) > 0n).map((entry) => [entry.partition, BigInt(entry.high) - 1n]));
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  };

  const caughtUp = async (targets: Map<number, bigint>): Promise<boolean> => {
    for (const [partition, last] of targets) {
      const stored = await redis.get(authKeys.offset(topic, partition));
      if (stored === null || BigInt(stored) < last) return false;
    }
    return true;
  };

  const startConsumer = async (): Promise<void> => {
    // Set before the consumer starts: offsets it stores from now on belong to this registry.
    await redis.set(authKeys.marker, new Date().toISOString());
    const started = await runProjectionConsumer(kafka, {
      groupId: REGISTRY_GROUP_ID,
      topics: [topic],
      loadOffsets: projection.loadOffsets,
      handleBatch: projection.handleBatch,
      logger: log,
    });
    if (stopped) {
      // stop() came while Kafka was slow to answer: this consumer must not outlive it.
      await started.stop().catch(() => undefined);
      return;
    }
    consumer = started;
    catchUpTo = undefined;
    log.info("key registry consumer started");
  };

  const tick = async (): Promise<void> => {
    if (!migrated) {
      await migrate();
      migrated = true;
    }
    const present = (await redis.exists(authKeys.marker)) === 1;
    if (consumer !== undefined && !present) {
      log.warn("the key registry is missing from Redis; rebuilding it from auth.api-keys.v1");
      complete = false;
      await consumer.stop().catch((error: unknown) => log.warn({ err: error }, "could not stop the registry consumer cleanly"));
      consumer = undefined;
    }
    if (consumer === undefined) {
      complete = false;
      await startConsumer();
      if (consumer === undefined) return;
    }
    if (!complete) {
      catchUpTo ??= await endOffsets();
      if (await caughtUp(catchUpTo)) {
        complete = true;
        catchUpTo = undefined;
        log.info("key registry complete");
      }
    }
  };

  const loop = (async () => {
    let failing = false;
    while (!stopped) {
      let delay = intervalMs;
      try {
        await tick();
        failing = false;
        // A rebuild in progress is watched closely, so readiness returns as soon as it is done.
        if (!complete) delay = Math.min(intervalMs, CATCH_UP_POLL_MS);
      } catch (error) {
        // Kafka or Redis away: readiness says so through their own checks; try again next round,
        // and say so once per outage rather than every round.
        complete = false;
        if (!failing) log.warn({ err: error }, "key registry supervision failed; retrying");
        else log.debug({ err: error }, "key registry supervision still failing");
        failing = true;
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  })();

  return {
    check: { name: "registry", probe: async () => complete },
    complete: () => complete,
    poke: () => wake?.(),
    async stop() {
      stopped = true;
      wake?.();
      // A tick may be waiting out Kafka's retries (a broker that is away); it notices `stopped`
      // when it ends, so shutdown need not wait for it.
      await Promise.race([loop, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      await consumer?.stop().catch(() => undefined);
      consumer = undefined;
    },
  };
}
