import { migrateTopics, runProjectionConsumer, topicCatalog, type Kafka, type ProjectionBatch, type ProjectionConsumer } from "@platform/bus";
import type { Logger } from "@platform/log";
import type { DependencyCheck } from "@platform/runtime";
import type { Signals } from "@platform/signals";
import type { Redis } from "@platform/store";

/** What a projection gives the supervisor: its stored positions and how it applies a batch. */
export interface SupervisedProjection {
  loadOffsets(topic: string, partition: number): Promise<string | undefined>;
  handleBatch(batch: ProjectionBatch): Promise<void>;
}

/**
 * The options every `start<Name>Projection(opts)` of the projector takes (accounts, market,
 * subnets), so main.ts wires them alike.
 */
export interface ProjectionStartOptions {
  kafka: Kafka;
  /** For the marker check (shared connection). */
  redis: Redis;
  /** A connection of the projection's own (WATCH belongs to a connection). */
  projectionRedis: Redis;
  signals?: Signals;
  log: Logger;
  /** Replication of the topics if this process is the first to create them. */
  replicationFactor: number;
  /** How often the marker is checked; 2 s by default. */
  intervalMs?: number;
}

export interface ProjectionSupervisorOptions {
  /** Short name: the readiness check is `projection:<name>`, and it names the projection in logs. */
  name: string;
  kafka: Kafka;
  redis: Redis;
  log: Logger;
  groupId: string;
  topics: readonly string[];
  /** Set when the projection (re)starts; its absence means Redis lost the read model. */
  markerKey: string;
  projection: SupervisedProjection;
  replicationFactor: number;
  intervalMs?: number;
  /** Called before a rebuild's consumer starts (drop in-memory caches of the lost read model). */
  onRebuild?: () => Promise<void> | void;
  /** Extra readiness beyond "the consumer runs"; true by default. */
  ready?: () => Promise<boolean>;
  /** Passed to the consumer: how long a fetch waits for records (ms). */
  maxWaitTimeMs?: number;
}

export interface ProjectionSupervisor {
  /** Readiness: the projection's consumer runs (and `ready` says so). */
  check: DependencyCheck;
  stop(): Promise<void>;
}

/**
 * Keeps a read model a live projection of its topics (generalised from the intents supervisor):
 * creates the topics if they are missing (so the consumer can subscribe before any producer ran),
 * starts the consumer, and every interval checks the marker. Redis losing it (FLUSHALL, a fresh
 * server) means the read model is gone while the consumer still believes its positions: the
 * consumer is stopped, the marker set again, and a new consumer replays the topics from offset 0
 * (it finds no stored offsets).
 */
export function superviseProjection(options: ProjectionSupervisorOptions): ProjectionSupervisor {
  const { kafka, redis, log, name } = options;
  const intervalMs = options.intervalMs ?? 2_000;
  let consumer: ProjectionConsumer | undefined;
  let migrated = false;
  let stopped = false;
  let wake: (() => void) | undefined;

  const migrate = async (): Promise<void> => {
    const admin = kafka.admin();
    try {
      await admin.connect();
      const specs = topicCatalog({ replicationFactor: options.replicationFactor }).filter((spec) => options.topics.includes(spec.name));
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
    const present = (await redis.exists(options.markerKey)) === 1;
    if (consumer !== undefined && !present) {
      log.warn(`the ${name} read model is missing from Redis; rebuilding it from its topics`);
      await consumer.stop().catch((error: unknown) => log.warn({ err: error }, `could not stop the ${name} consumer cleanly`));
      consumer = undefined;
      await options.onRebuild?.();
    }
    if (consumer === undefined) {
      // Set before the consumer starts: offsets it stores from now on belong to this read model.
      await redis.set(options.markerKey, new Date().toISOString());
      const started = await runProjectionConsumer(kafka, {
        groupId: options.groupId,
        topics: [...options.topics],
        loadOffsets: options.projection.loadOffsets,
        handleBatch: options.projection.handleBatch,
        logger: log,
        ...(options.maxWaitTimeMs === undefined ? {} : { maxWaitTimeMs: options.maxWaitTimeMs }),
      });
      if (stopped) {
        await started.stop().catch(() => undefined);
        return;
      }
      consumer = started;
      log.info(`${name} projection consumer started`);
    }
  };

  const loop = (async () => {
    let failing = false;
    while (!stopped) {
      try {
        await tick();
        failing = false;
      } catch (error) {
        if (!failing) log.warn({ err: error }, `${name} projection supervision failed; retrying`);
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
    check: {
      name: `projection:${name}`,
      probe: async () => consumer !== undefined && (options.ready === undefined || (await options.ready())),
    },
    async stop() {
      stopped = true;
      wake?.();
      await Promise.race([loop, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      await consumer?.stop().catch(() => undefined);
      consumer = undefined;
    },
  };
}
