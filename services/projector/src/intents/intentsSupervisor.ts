import { migrateTopics, runProjectionConsumer, topicCatalog, type Kafka, type ProjectionConsumer } from "@platform/bus";
import type { Logger } from "@platform/log";
import { TOPICS } from "@platform/proto/topics";
import type { DependencyCheck } from "@platform/runtime";
import type { Signals } from "@platform/signals";
import type { Redis } from "@platform/store";
import { intentsKeys } from "./keys.js";
import { intentsProjection } from "./projection.js";

export const INTENTS_GROUP_ID = "projector-intents";

export const INTENTS_TOPICS = [TOPICS.chainIntents.name, TOPICS.intentsNotifications.name] as const;

export interface IntentsSupervisorOptions {
  kafka: Kafka;
  /** For the marker check. */
  redis: Redis;
  /** A connection of the projection's own, so its reads and commits never queue behind the marker checks. */
  projectionRedis: Redis;
  signals?: Signals;
  log: Logger;
  refundGraceSeconds: number;
  /** Replication of the two topics if this process is the first to create them. */
  replicationFactor: number;
  /** How often the marker is checked; 2 s by default. */
  intervalMs?: number;
}

export interface IntentsSupervisor {
  /** Readiness: the projection's consumer runs. */
  check: DependencyCheck;
  stop(): Promise<void>;
}

/**
 * Keeps the intents read model a live projection of its topics, as auth keeps its registry:
 * creates the topics if they are missing (so the consumer can subscribe before any producer ran),
 * starts the consumer, and every interval checks the marker `rm:intents:projection`. Redis losing
 * it (FLUSHALL, a fresh server) means the read model is gone while the consumer still believes its
 * positions: the consumer is stopped, the marker set again, and a new consumer replays both topics
 * from offset 0 (it finds no stored offsets).
 */
export function superviseIntentsProjection(options: IntentsSupervisorOptions): IntentsSupervisor {
  const { kafka, redis, log } = options;
  const intervalMs = options.intervalMs ?? 2_000;
  const projection = intentsProjection({
    redis: options.projectionRedis,
    log,
    refundGraceSeconds: options.refundGraceSeconds,
    ...(options.signals === undefined ? {} : { signals: options.signals }),
  });
  let consumer: ProjectionConsumer | undefined;
  let migrated = false;
  let stopped = false;
  let wake: (() => void) | undefined;

  const migrate = async (): Promise<void> => {
    const admin = kafka.admin();
    try {
      await admin.connect();
      const specs = topicCatalog({ replicationFactor: options.replicationFactor }).filter((spec) => (INTENTS_TOPICS as readonly string[]).includes(spec.name));
      await migrateTopics(admin, specs, { logger: log });
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  };

  const tick = async (): Promise<void> => {
    if (!migrated) {
      await migrate();
      migrated = true;
    }
    const present = (await redis.exists(intentsKeys.marker)) === 1;
    if (consumer !== undefined && !present) {
      log.warn("the intents read model is missing from Redis; rebuilding it from its topics");
      await consumer.stop().catch((error: unknown) => log.warn({ err: error }, "could not stop the intents consumer cleanly"));
      consumer = undefined;
    }
    if (consumer === undefined) {
      // Set before the consumer starts: offsets it stores from now on belong to this read model.
      await redis.set(intentsKeys.marker, new Date().toISOString());
      const started = await runProjectionConsumer(kafka, {
        groupId: INTENTS_GROUP_ID,
        topics: [...INTENTS_TOPICS],
        loadOffsets: projection.loadOffsets,
        handleBatch: projection.handleBatch,
        logger: log,
      });
      if (stopped) {
        await started.stop().catch(() => undefined);
        return;
      }
      consumer = started;
      log.info("intents projection consumer started");
    }
  };

  const loop = (async () => {
    let failing = false;
    while (!stopped) {
      try {
        await tick();
        failing = false;
      } catch (error) {
        if (!failing) log.warn({ err: error }, "intents projection supervision failed; retrying");
        failing = true;
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, intervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  })();

  return {
    check: { name: "projection:intents", probe: async () => consumer !== undefined },
    async stop() {
      stopped = true;
      wake?.();
      await Promise.race([loop, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      await consumer?.stop().catch(() => undefined);
      consumer = undefined;
    },
  };
}
