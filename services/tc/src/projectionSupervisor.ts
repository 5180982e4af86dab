import { randomUUID } from "node:crypto";
import { migrateTopics, runProjectionConsumer, topicCatalog, type Kafka, type ProjectionConsumer } from "@platform/bus";
import type { Logger } from "@platform/log";
import { TOPICS } from "@platform/proto/topics";
import type { DependencyCheck } from "@platform/runtime";
import type { Redis } from "@platform/store";
import { tcKeys } from "./keys.js";
import { acceptanceProjection } from "./projection.js";

export const PROJECTION_GROUP_ID = "tc-acceptances";

export interface ProjectionSupervisorOptions {
  kafka: Kafka;
  /** For the marker and offset checks. */
  redis: Redis;
  /** A connection of the projection's own (its WATCH must not share a connection). */
  projectionRedis: Redis;
  log: Logger;
  /** Replication of tc.acceptances.v1 when the migration creates it. */
  replicationFactor: number;
  /** How often the marker is checked once the projection is complete; 2 s by default. */
  intervalMs?: number;
}

/** Lets a reader that found the projection missing ask for a check now rather than at the next interval. */
export interface ProjectionStatus {
  poke(): void;
}

export interface ProjectionSupervisor extends ProjectionStatus {
  /** Readiness: the consumer runs and the projection is complete. */
  check: DependencyCheck;
  stop(): Promise<void>;
}

/** While a rebuild catches up, its progress is checked this often. */
const CATCH_UP_POLL_MS = 100;

/** The marker's value once the projection holds everything the topic held when its rebuild began. */
export const PROJECTION_COMPLETE = "complete";

/** Sets the marker to `complete` only if it still names the rebuild whose catch-up was measured. */
const COMPLETE_IF_UNCHANGED = `if redis.call("GET", KEYS[1]) == ARGV[1] then redis.call("SET", KEYS[1], ARGV[2]) return 1 end return 0`;

/**
 * Keeps `tc:wallet:*` a live projection of `tc.acceptances.v1`, whatever happens to Kafka or
 * Redis. The marker `tc:projection` (keys.ts) says what Redis holds: absent (nothing: a fresh
 * server, FLUSHALL), `rebuilding:<id>` (a replay in progress) or `complete`. Keeping that state in
 * Redis rather than in the process means every tc replica, and a restarted one, judges the
 * projection the same way: reads trust it only when it is `complete`. Every `intervalMs` (or at
 * once when poked) the supervisor:
 *
 * 1. creates the topic once (migrateTopics, tc's topic only), retrying while Kafka is away;
 * 2. finds the marker absent: the running consumer's positions are void, so it is stopped, the
 *    marker set to a new `rebuilding:<id>`, and a new consumer started, which finds no stored
 *    offsets and replays the topic from offset 0 (other replicas see a rebalance when this one
 *    rejoins, which makes their consumers reload their offsets too);
 * 3. starts the consumer if none runs (first start, a restart, or Kafka back after an outage);
 * 4. while the marker says `rebuilding:<id>`, reads the topic's end offsets and, once the stored
 *    offsets reach them, swaps that very marker value for `complete`. A replica that crashed
 *    mid-rebuild leaves the marker as it was, and whoever runs next finishes the job.
 *
 * A restart while Kafka is away therefore keeps answering reads from a complete projection; only
 * the consumer (and acceptances) wait for Kafka.
 */
export function superviseProjection(options: ProjectionSupervisorOptions): ProjectionSupervisor {
  const { kafka, redis, log } = options;
  const intervalMs = options.intervalMs ?? 2_000;
  const projection = acceptanceProjection(options.projectionRedis, log);
  const topic = TOPICS.tcAcceptances.name;
  let consumer: ProjectionConsumer | undefined;
  let migrated = false;
  let stopped = false;
  let wake: (() => void) | undefined;
  /** The marker as the last tick left it. */
  let marker: string | null = null;

  const withAdmin = async <T>(work: (admin: ReturnType<Kafka["admin"]>) => Promise<T>): Promise<T> => {
    const admin = kafka.admin();
    try {
      await admin.connect();
      return await work(admin);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  };

  const migrate = () =>
    withAdmin((admin) =>
      migrateTopics(
        admin,
        topicCatalog({ replicationFactor: options.replicationFactor }).filter((spec) => spec.name === topic),
        { logger: log },
      ),
    );

  /** The last offset per non-empty partition, read after the marker: what a rebuild must reach. */
  const endOffsets = () =>
    withAdmin(async (admin) => {
      const offsets = await admin.fetchTopicOffsets(topic);
      return new Map(offsets.filter((entry) => BigInt(entry.high) > 0n).map((entry) => [entry.partition, BigInt(entry.high) - 1n]));
    });

  const caughtUp = async (targets: Map<number, bigint>): Promise<boolean> => {
    for (const [partition, last] of targets) {
      const stored = await redis.get(tcKeys.offset(topic, partition));
      if (stored === null || BigInt(stored) < last) return false;
    }
    return true;
  };

  const startConsumer = async (): Promise<void> => {
    const started = await runProjectionConsumer(kafka, {
      groupId: PROJECTION_GROUP_ID,
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
    log.info("acceptance projection consumer started");
  };

  const tick = async (): Promise<void> => {
    if (!migrated) {
      await migrate();
      migrated = true;
    }
    marker = await redis.get(tcKeys.marker);
    if (marker === null) {
      if (consumer !== undefined) {
        log.warn("the acceptance projection is missing from Redis; rebuilding it from tc.acceptances.v1");
        await consumer.stop().catch((error: unknown) => log.warn({ err: error }, "could not stop the projection consumer cleanly"));
        consumer = undefined;
      }
      // Set before the consumer starts: offsets stored from now on belong to this rebuild. NX: a
      // replica that got there first names the rebuild.
      await redis.set(tcKeys.marker, `rebuilding:${randomUUID()}`, "NX");
      marker = await redis.get(tcKeys.marker);
    }
    if (consumer === undefined) await startConsumer();
    if (consumer === undefined || marker === null || marker === PROJECTION_COMPLETE) return;
    if (await caughtUp(await endOffsets())) {
      const swapped = await redis.eval(COMPLETE_IF_UNCHANGED, 1, tcKeys.marker, marker, PROJECTION_COMPLETE);
      if (swapped === 1) {
        marker = PROJECTION_COMPLETE;
        log.info("acceptance projection complete");
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
        if (marker !== PROJECTION_COMPLETE) delay = Math.min(intervalMs, CATCH_UP_POLL_MS);
      } catch (error) {
        // Kafka or Redis away: readiness says so through their own checks; try again next round,
        // and say so once per outage rather than every round.
        if (!failing) log.warn({ err: error }, "acceptance projection supervision failed; retrying");
        else log.debug({ err: error }, "acceptance projection supervision still failing");
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
    check: {
      name: "projection",
      probe: async () => consumer !== undefined && (await redis.get(tcKeys.marker).catch(() => null)) === PROJECTION_COMPLETE,
    },
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
