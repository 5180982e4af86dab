import type { Logger } from "@platform/log";
import type { Admin, Kafka } from "kafkajs";
import { Counter, Gauge, type Registry } from "prom-client";
import { lagSeconds, type PartitionLagState, partitionLagRecords } from "./projectionLag.js";

/**
 * What a projection consumer tells about where it stands (runProjectionConsumer's `progress`).
 * Offsets are "next": the offset of the next record the projection will apply.
 */
export interface ProjectionProgress {
  /** The partitions this member was given on joining (the others are forgotten), with their stored positions where known. */
  assigned(partitions: ReadonlyArray<{ topic: string; partition: number; next: bigint | undefined }>): void;
  /** The partition's position moved (its stored offset loaded, or past records it skips: commit markers, aborted ones). */
  position(topic: string, partition: number, next: bigint): void;
  /** A batch is being applied; its first record was written at `firstTimestampMs` (Kafka timestamp). */
  applying(topic: string, partition: number, firstTimestampMs: number): void;
  /** The batch is applied and stored (committed to the store with its offset). */
  applied(topic: string, partition: number, records: number, lastTimestampMs: number, next: bigint): void;
  /** The batch failed; it will be read again. */
  failed(topic: string, partition: number): void;
}

export interface ProjectionMetrics extends ProjectionProgress {
  /** The read model is being replayed from offset 0 after it was lost (its marker missing). */
  rebuilding(on: boolean): void;
  /** Reads the topics' high watermarks now (one ListOffsets pair per topic, never per record). */
  refresh(admin: Pick<Admin, "fetchTopicOffsets">): Promise<void>;
  /** Refreshes every `intervalMs` on an admin client of its own (unref'd timer) until `stop`. */
  startRefreshing(kafka: Kafka, intervalMs: number, log?: Logger): void;
  /** Stops refreshing and removes this projection's lag series. */
  stop(): Promise<void>;
}

export interface ProjectionMetricsOptions {
  registry: Registry;
  /** The `projection` label. */
  projection: string;
  topics: readonly string[];
  /** Wall clock in ms; Date.now by default (tests move it). */
  now?: () => number;
}

interface Tracker {
  projection: string;
  topics: readonly string[];
  /** Whether a refresh has read the topics' ends yet: until then no lag is reported. */
  refreshed(): boolean;
  states(): Array<PartitionLagState & { topic: string }>;
  now(): number;
}

interface SharedMetrics {
  trackers: Set<Tracker>;
  rebuilding: Gauge;
  applied: Counter;
  lastCommit: Gauge;
}

/** One set of metrics per registry, however many projections a process runs on it. */
const sharedByRegistry = new WeakMap<Registry, SharedMetrics>();

function sharedMetrics(registry: Registry): SharedMetrics {
  const existing = sharedByRegistry.get(registry);
  if (existing !== undefined) return existing;
  const trackers = new Set<Tracker>();
  new Gauge({
    name: "projection_consumer_lag_records",
    help: "Records the projection has not applied yet, by topic: the sum over the topic's partitions assigned to this process of (high watermark - the next offset the projection will apply). High watermarks are read every few seconds. Transaction commit markers take offsets too: they count while ahead of the projection, never once it passed them (0 when caught up).",
    labelNames: ["projection", "topic"],
    registers: [registry],
    collect() {
      this.reset();
      for (const tracker of trackers) {
        if (!tracker.refreshed()) continue;
        const sums = new Map<string, bigint>(tracker.topics.map((topic) => [topic, 0n]));
        for (const state of tracker.states())
          sums.set(state.topic, (sums.get(state.topic) ?? 0n) + partitionLagRecords(state));
        for (const [topic, sum] of sums) this.set({ projection: tracker.projection, topic }, Number(sum));
      }
    },
  });
  new Gauge({
    name: "projection_consumer_lag_seconds",
    help: "How far behind its topics the projection is in time: 0 when it has applied everything on its partitions, otherwise now minus the Kafka timestamp of the oldest record not applied yet. Exact while a batch is being applied (its first record); otherwise approximated by the later of the last applied record's timestamp and the last time the partition was seen caught up (so a quiet topic does not read as hours behind).",
    labelNames: ["projection"],
    registers: [registry],
    collect() {
      this.reset();
      for (const tracker of trackers) {
        if (!tracker.refreshed()) continue;
        this.set({ projection: tracker.projection }, lagSeconds(tracker.states(), tracker.now()));
      }
    },
  });
  const shared: SharedMetrics = {
    trackers,
    rebuilding: new Gauge({
      name: "projection_rebuilding",
      help: "1 while the projection replays its topics from offset 0 because its read model was lost (its marker was missing), 0 otherwise.",
      labelNames: ["projection"],
      registers: [registry],
    }),
    applied: new Counter({
      name: "projection_records_applied_total",
      help: "Records the projection applied and stored (with their offsets) in its read model.",
      labelNames: ["projection"],
      registers: [registry],
    }),
    lastCommit: new Gauge({
      name: "projection_last_commit_timestamp_seconds",
      help: "Wall-clock time (unix seconds) of the projection's last commit to its store.",
      labelNames: ["projection"],
      registers: [registry],
    }),
  };
  sharedByRegistry.set(registry, shared);
  return shared;
}

const keyOf = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/**
 * Lag and progress metrics of one projection: records and seconds behind its topics, rebuilds,
 * records applied and the last commit. The consumer reports where it stands (ProjectionProgress);
 * the topics' high watermarks are read on a timer, never per record, and the lag is computed when
 * scraped, from the newest of both.
 */
export function projectionMetrics(options: ProjectionMetricsOptions): ProjectionMetrics {
  const { projection, topics } = options;
  const now = options.now ?? Date.now;
  const shared = sharedMetrics(options.registry);
  const labels = { projection };
  const partitions = new Map<
    string,
    { topic: string; partition: number; state: Omit<PartitionLagState, "high" | "low"> }
  >();
  const ends = new Map<string, { high: bigint; low: bigint }>();
  let refreshed = false;

  const stateOf = (key: string): (PartitionLagState & { topic: string }) | undefined => {
    const entry = partitions.get(key);
    if (entry === undefined) return undefined;
    const end = ends.get(key);
    return { ...entry.state, ...(end === undefined ? {} : end), topic: entry.topic };
  };
  /** Marks the partitions with nothing left to apply as caught up now: the bound of seconds behind. */
  const noteCaughtUp = (at: number) => {
    for (const [key, entry] of partitions) {
      const state = stateOf(key)!;
      if (state.high !== undefined && partitionLagRecords(state) === 0n) entry.state.caughtUpAtMs = at;
    }
  };
  const tracker: Tracker = {
    projection,
    topics,
    refreshed: () => refreshed,
    states: () => {
      noteCaughtUp(now());
      return [...partitions.keys()].map((key) => stateOf(key)!);
    },
    now,
  };
  shared.trackers.add(tracker);
  shared.rebuilding.set(labels, 0);
  shared.applied.inc(labels, 0);

  let stopRefreshing: (() => Promise<void>) | undefined;

  const metrics: ProjectionMetrics = {
    assigned(assignment) {
      const at = now();
      partitions.clear();
      for (const { topic, partition, next } of assignment)
        partitions.set(keyOf(topic, partition), { topic, partition, state: { next: next ?? 0n, assignedAtMs: at } });
    },
    position(topic, partition, next) {
      const entry = partitions.get(keyOf(topic, partition));
      // Forward only: a reload of the stored offset after a failed batch must not count a skipped commit marker again.
      if (entry !== undefined && next > entry.state.next) entry.state.next = next;
      else if (entry === undefined)
        partitions.set(keyOf(topic, partition), { topic, partition, state: { next, assignedAtMs: now() } });
    },
    applying(topic, partition, firstTimestampMs) {
      const entry = partitions.get(keyOf(topic, partition));
      if (entry !== undefined) entry.state.applyingMs = firstTimestampMs;
    },
    applied(topic, partition, records, lastTimestampMs, next) {
      const entry = partitions.get(keyOf(topic, partition));
      if (entry !== undefined) {
        delete entry.state.applyingMs;
        entry.state.appliedMs = lastTimestampMs;
        if (next > entry.state.next) entry.state.next = next;
      }
      shared.applied.inc(labels, records);
      shared.lastCommit.set(labels, now() / 1_000);
    },
    failed(topic, partition) {
      const entry = partitions.get(keyOf(topic, partition));
      if (entry !== undefined) delete entry.state.applyingMs;
    },
    rebuilding(on) {
      shared.rebuilding.set(labels, on ? 1 : 0);
    },
    async refresh(admin) {
      for (const topic of topics)
        for (const { partition, high, low } of await admin.fetchTopicOffsets(topic))
          ends.set(keyOf(topic, partition), { high: BigInt(high), low: BigInt(low) });
      refreshed = true;
      noteCaughtUp(now());
    },
    startRefreshing(kafka, intervalMs, log) {
      if (stopRefreshing !== undefined) return;
      stopRefreshing = refreshEvery(kafka, intervalMs, metrics.refresh, projection, log);
    },
    async stop() {
      shared.trackers.delete(tracker);
      await stopRefreshing?.();
      stopRefreshing = undefined;
    },
  };
  return metrics;
}

/**
 * Runs `refresh` now and then every `intervalMs` on one admin connection, reconnected after a
 * failure (Kafka away: the last values stand, and the lag in seconds keeps growing). Returns the stop.
 */
function refreshEvery(
  kafka: Kafka,
  intervalMs: number,
  refresh: (admin: Admin) => Promise<void>,
  projection: string,
  log: Logger | undefined,
): () => Promise<void> {
  let admin: Admin | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let failing = false;
  const tick = async () => {
    try {
      if (admin === undefined) {
        const connecting = kafka.admin();
        await connecting.connect();
        admin = connecting;
      }
      await refresh(admin);
      failing = false;
    } catch (error) {
      if (!failing) log?.debug({ err: error, projection }, "could not read the topics' ends for the lag metrics");
      failing = true;
      const broken = admin;
      admin = undefined;
      await broken?.disconnect().catch(() => undefined);
    }
  };
  const run = () => {
    running = tick().finally(() => {
      running = undefined;
      if (stopped) return;
      timer = setTimeout(run, intervalMs);
      timer.unref();
    });
  };
  run();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    // A refresh waiting out Kafka's retries must not hold the shutdown up.
    await Promise.race([running, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    await admin?.disconnect().catch(() => undefined);
    admin = undefined;
  };
}
