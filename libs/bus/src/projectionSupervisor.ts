import { randomUUID } from "node:crypto";
import type { Logger } from "@platform/log";
import type { Kafka } from "kafkajs";
import type { Registry } from "prom-client";
import { migrateTopics, type TopicMigrationReport } from "./migrateTopics.js";
import { type ProjectionBatch, type ProjectionConsumer, runProjectionConsumer } from "./projectionConsumer.js";
import { projectionMetrics } from "./projectionMetrics.js";
import { requireTopics } from "./requireTopics.js";
import { topicSpecs } from "./topicSpecs.js";

/** The marker's value once the read model holds everything its topics held when its rebuild began. */
export const PROJECTION_COMPLETE = "complete";

const REBUILDING = "rebuilding:";

/**
 * Where the read model says what it holds, beside the read model itself (so losing one loses the
 * other): absent (nothing: a fresh server, a flush), `rebuilding:<id>` (a replay in progress) or
 * `complete`. Shared by every replica, so each judges the read model the same way.
 */
export interface ProjectionMarker {
  read(): Promise<string | null>;
  /** Sets the marker unless one exists: the replica that got there first names the rebuild. */
  setIfAbsent(value: string): Promise<void>;
  /** Replaces the marker by `value` only if it still holds `expected`; true when it did. */
  replace(expected: string, value: string): Promise<boolean>;
}

/** What a projection gives its supervisor: its stored positions and how it applies a batch. */
export interface SupervisedProjection {
  /** The offset of the last record applied on the partition (stored with the read model). */
  loadOffsets(topic: string, partition: number): Promise<string | undefined>;
  handleBatch(batch: ProjectionBatch): Promise<void>;
  /**
   * Seeds a lost read model from a durable copy (the history database) together with the offsets
   * that copy stands at, so the consumer resumes from there instead of replaying the topics from
   * offset 0 (which bounded retention no longer holds). Run by the replica that starts the rebuild,
   * before its consumer starts; without it the rebuild replays from the topics' start.
   */
  restore?(): Promise<void>;
}

export interface ProjectionSupervisorOptions {
  /** Names the projection in logs. */
  name: string;
  /** The readiness check's name; `projection:<name>` by default. */
  checkName?: string;
  kafka: Kafka;
  log: Logger;
  groupId: string;
  topics: readonly string[];
  marker: ProjectionMarker;
  projection: SupervisedProjection;
  /** Replication of the topics if this process is the first to create them. */
  replicationFactor: number;
  /** `retention.ms` of the chain topics among them if this process creates them (CHAIN_TOPICS_RETENTION_MS). */
  chainTopicsRetentionMs?: number;
  /**
   * Whether the migration brings the configs of existing topics to their spec: true (the default)
   * for a service that owns its topics (auth, tc); false for one that only creates them when it
   * starts first (the projector), which then logs a difference and leaves it to the owner.
   */
  alterTopicConfigs?: boolean;
  /**
   * Whether it creates the topics when they are missing (true, the default: a bare broker, as in
   * tests) or only waits for them (false: the platform's deployments, whose topics step creates
   * them and whose Kafka users hold no CREATE): its consumer starts, and readiness comes, once
   * they exist.
   */
  createTopics?: boolean;
  /**
   * Whether readiness waits for a complete read model (readers that must not answer "not found"
   * from a half-replayed one) or only for a running consumer; true by default.
   */
  readyWhenComplete?: boolean;
  /** How often the marker is checked once the read model is complete; 2 s by default. */
  intervalMs?: number;
  /** Called before a rebuild's consumer starts (drop in-memory caches of the lost read model). */
  onRebuild?: () => Promise<void> | void;
  /** Passed to the consumer: how long a fetch waits for records (ms). */
  maxWaitTimeMs?: number;
  /**
   * Where the projection's lag and progress metrics go (projectionMetrics.ts), labelled with
   * `projection` (`name` by default); the topics' ends are read every `lagIntervalMs` (5 s by
   * default). None without it.
   */
  metrics?: { registry: Registry; projection?: string; lagIntervalMs?: number };
}

export interface ProjectionSupervisor {
  /** Readiness: the consumer runs (and, with readyWhenComplete, the read model is complete). */
  check: { name: string; probe: () => Promise<boolean> };
  /** True while the marker, as last read, says the read model is complete. */
  complete(): boolean;
  /** A reader found the marker missing: check now rather than at the next interval. */
  poke(): void;
  stop(): Promise<void>;
}

/** While a rebuild catches up, its progress is checked this often. */
const CATCH_UP_POLL_MS = 100;

/**
 * Keeps a read model a live projection of its topics, whatever happens to Kafka or the store.
 * Every `intervalMs` (or at once when poked) it:
 *
 * 1. creates the topics once (migrateTopics, these topics only), retrying while Kafka is away, so
 *    the consumer can subscribe before any producer ran; or, with `createTopics: false`, waits
 *    until they exist (the platform's topics step creates them);
 * 2. finds the marker absent: the running consumer's positions are void, so it is stopped, the
 *    marker set to a new `rebuilding:<id>`, and a new consumer started, which finds no stored
 *    offsets and replays the topics from offset 0 (other replicas see a rebalance when this one
 *    rejoins, which makes their consumers reload their offsets too);
 * 3. starts the consumer if none runs (first start, a restart, or Kafka back after an outage);
 * 4. while the marker says `rebuilding:<id>`, reads the topics' end offsets and, once the stored
 *    offsets reach them, swaps that very marker value for `complete`. A replica that crashed
 *    mid-rebuild leaves the marker as it was, and whoever runs next finishes the job.
 *
 * Keeping that state beside the read model rather than in the process means a restart while
 * Kafka is away keeps answering reads from a complete read model; only the consumer waits.
 */
export function superviseProjection(options: ProjectionSupervisorOptions): ProjectionSupervisor {
  const { kafka, log, name, marker: store } = options;
  const intervalMs = options.intervalMs ?? 2_000;
  const metrics =
    options.metrics &&
    projectionMetrics({
      registry: options.metrics.registry,
      projection: options.metrics.projection ?? name,
      topics: options.topics,
    });
  metrics?.startRefreshing(kafka, options.metrics?.lagIntervalMs ?? 5_000, log);
  let consumer: ProjectionConsumer | undefined;
  let migrated = false;
  let stopped = false;
  let wake: (() => void) | undefined;
  /** The marker as the last tick left it. */
  let marker: string | null = null;
  const isComplete = () => marker !== null && !marker.startsWith(REBUILDING);

  /** What the rebuild in progress must reach; read at the first tick that sees it. */
  let rebuildTarget: { marker: string; ends: Map<string, bigint> } | undefined;

  const startConsumer = async (): Promise<void> => {
    const started = await runProjectionConsumer(kafka, {
      groupId: options.groupId,
      topics: [...options.topics],
      loadOffsets: options.projection.loadOffsets,
      handleBatch: options.projection.handleBatch,
      logger: log,
      ...(options.maxWaitTimeMs === undefined ? {} : { maxWaitTimeMs: options.maxWaitTimeMs }),
      ...(metrics === undefined ? {} : { progress: metrics }),
    });
    if (stopped) {
      // stop() came while Kafka was slow to answer: this consumer must not outlive it.
      await started.stop().catch(() => undefined);
      return;
    }
    consumer = started;
    log.info(`${name} projection consumer started`);
  };

  const tick = async (): Promise<void> => {
    if (!migrated) {
      await migrateProjectionTopics(options);
      migrated = true;
    }
    marker = await store.read();
    if (marker === null) {
      if (consumer !== undefined) {
        log.warn(`the ${name} read model is missing; rebuilding it from its topics`);
        await consumer
          .stop()
          .catch((error: unknown) => log.warn({ err: error }, `could not stop the ${name} consumer cleanly`));
        consumer = undefined;
      }
      await options.onRebuild?.();
      // Set before the consumer starts: offsets stored from now on belong to this rebuild.
      const rebuild = `${REBUILDING}${randomUUID()}`;
      await store.setIfAbsent(rebuild);
      marker = await store.read();
      if (marker === rebuild && options.projection.restore !== undefined) {
        const started = Date.now();
        await options.projection.restore();
        log.info({ ms: Date.now() - started }, `${name} read model restored from its durable copy; replaying the tail`);
      }
    }
    metrics?.rebuilding(marker?.startsWith(REBUILDING) === true);
    if (consumer === undefined) await startConsumer();
    if (consumer === undefined || marker === null || isComplete()) return;
    // The end offsets are read after the marker: whatever the topics held then, the rebuild must reach.
    if (rebuildTarget?.marker !== marker) rebuildTarget = { marker, ends: await endOffsets(options) };
    if (await caughtUp(options, rebuildTarget.ends)) {
      if (await store.replace(marker, PROJECTION_COMPLETE)) {
        marker = PROJECTION_COMPLETE;
        metrics?.rebuilding(false);
        log.info(`${name} read model complete`);
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
        if (!isComplete()) delay = Math.min(intervalMs, CATCH_UP_POLL_MS);
      } catch (error) {
        // Kafka or the store away: readiness says so through their own checks; try again next
        // round, and say so once per outage rather than every round.
        if (!failing) log.warn({ err: error }, `${name} projection supervision failed; retrying`);
        else log.debug({ err: error }, `${name} projection supervision still failing`);
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

  const readyWhenComplete = options.readyWhenComplete ?? true;
  return {
    check: {
      name: options.checkName ?? `projection:${name}`,
      probe: async () => {
        if (consumer === undefined) return false;
        if (!readyWhenComplete) return true;
        const current = await store.read().catch(() => null);
        return current !== null && !current.startsWith(REBUILDING);
      },
    },
    complete: isComplete,
    poke: () => wake?.(),
    async stop() {
      stopped = true;
      wake?.();
      // A tick may be waiting out Kafka's retries (a broker that is away); it notices `stopped`
      // when it ends, so shutdown need not wait for it.
      await Promise.race([loop, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      await consumer?.stop().catch(() => undefined);
      consumer = undefined;
      await metrics?.stop();
    },
  };
}

/**
 * Creates the projection's topics (these only) if they are missing, and brings the configs of
 * existing ones to their spec unless `alterTopicConfigs` is false; with `createTopics: false` only
 * checks that they exist (MissingTopicsError until then: the tick fails and is tried again).
 */
async function migrateProjectionTopics(options: ProjectionSupervisorOptions): Promise<void> {
  if (options.createTopics === false) return withAdmin(options.kafka, (admin) => requireTopics(admin, options.topics));
  await migrateAllTopics(options);
}

function migrateAllTopics(options: ProjectionSupervisorOptions): Promise<TopicMigrationReport> {
  const specs = topicSpecs({
    replicationFactor: options.replicationFactor,
    ...(options.chainTopicsRetentionMs === undefined ? {} : { chainTopicsRetentionMs: options.chainTopicsRetentionMs }),
  }).filter((spec) => options.topics.includes(spec.name));
  return withAdmin(options.kafka, (admin) =>
    migrateTopics(admin, specs, { logger: options.log, alterConfigs: options.alterTopicConfigs ?? true }),
  );
}

async function withAdmin<T>(kafka: Kafka, work: (admin: ReturnType<Kafka["admin"]>) => Promise<T>): Promise<T> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    return await work(admin);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Each partition's end offset (high watermark), by `<topic>:<partition>`. */
function endOffsets(options: ProjectionSupervisorOptions): Promise<Map<string, bigint>> {
  return withAdmin(options.kafka, async (admin) => {
    const ends = new Map<string, bigint>();
    for (const topic of options.topics)
      for (const entry of await admin.fetchTopicOffsets(topic))
        ends.set(`${topic}:${entry.partition}`, BigInt(entry.high));
    return ends;
  });
}

/**
 * Whether the stored offsets reach the end offsets the rebuild must reach (`target`, read when it
 * began; a busy topic's end moves on, and chasing it would never finish). A partition is there
 * when its stored offset is the record before the target end; or, while the partition is quiet
 * (its end still the target), the one before that: a transactional producer's commit marker takes
 * the last offset, and a consumer never sees it as a record.
 */
async function caughtUp(options: ProjectionSupervisorOptions, target: ReadonlyMap<string, bigint>): Promise<boolean> {
  const now = await endOffsets(options);
  for (const [partitionKey, end] of target) {
    if (end === 0n) continue;
    const [topic, partition] = [
      partitionKey.slice(0, partitionKey.lastIndexOf(":")),
      Number(partitionKey.slice(partitionKey.lastIndexOf(":") + 1)),
    ];
    const stored = await options.projection.loadOffsets(topic, partition);
    if (stored === undefined) return false;
    const reached = BigInt(stored) >= end - 1n || (BigInt(stored) >= end - 2n && now.get(partitionKey) === end);
    if (!reached) return false;
  }
  return true;
}
