import { LRUCache } from "lru-cache";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { ChangeClock, type Dependency } from "./changeClock.js";

/**
 * What is kept of an answer: enough to prove a later If-None-Match current, and to send the same
 * answer again, without asking the backend.
 */
export interface KeptAnswer {
  tag: string;
  /** The JSON sent, and its content type. */
  body: Buffer;
  contentType: string;
  /** The headers the route's answer set (a deprecation's, say), sent again with every copy. */
  headers?: Record<string, string>;
  /** When its Cache-Control lets a client's copy go stale (ms since the epoch): what answers from memory say. */
  expiresAt: number;
  /**
   * It is kept no longer than this (ms since the epoch), whatever the signals say: one block time
   * after it was read, also when its Cache-Control is 0 (a price whose oracle round is older than a
   * block, a chain whose next block is overdue). The signals prove it current; this only bounds
   * how long a lost signal could leave it standing.
   */
  keepUntil: number;
  /** The change clock's tick when the call that read it started. */
  since: number;
  dependencies: readonly Dependency[];
  /** Its `as_of` block's time (ms since the epoch), when it has one: each answer sent observes its age. */
  asOfMs?: number;
  /** It can never change (pinned to a finalized block): its Cache-Control says `immutable`. */
  immutable?: boolean;
}

/** How a conditional request (one with If-None-Match) was answered. */
export type ConditionalResult = "not_modified_cached" | "not_modified_after_call" | "modified";

export interface ConditionalReadsOptions {
  /** The chain's block time (DATA_BLOCK_SECONDS): answers are fresh until the next expected block. */
  blockSeconds: number;
  registry: Registry;
  /** Bound on the kept answers' estimated heap (their bodies and keys); 32 MiB by default. */
  maxBytes?: number;
  /** The wall clock, ms (tests move it). */
  now?: () => number;
}

/**
 * The gateway's memory of the Data API answers it sent, to answer If-None-Match with 304, and the
 * same question again with the same 200, without calling data-query when it can prove the
 * representation unchanged (issue 17): on a realistic mix most reads repeat a hot question within
 * the block that answered it.
 *
 * Kept per route, path parameters and canonical query (answers do not depend on the API key),
 * each answer's tag stands until the read model behind it changes, as the projections' change
 * signals tell (changeSignals.ts and changeClock.ts), and never longer than one block time after
 * it was read: a lost signal cannot keep a stale answer going longer than a client with a block's
 * max-age would have kept its copy without asking. While the signals are not known to arrive (NATS not ready,
 * or no NATS configured) nothing is proven from memory: every conditional request calls the
 * backend and compares the fresh answer's tag. Least recently used answers go first once the kept
 * ones' estimated heap passes `maxBytes`.
 */
export interface ConditionalReads {
  readonly blockSeconds: number;
  readonly clock: ChangeClock;
  now(): number;
  /** Whether answers may be proven unchanged from memory now. */
  cacheOn(): boolean;
  /** Turns proofs from memory on (the signals arrive) or off (they may be lost); nothing kept before counts. */
  setSignalsReady(ready: boolean): void;
  /** The answer kept under `key` if it is still current, else undefined (and it is dropped). */
  current(key: string): KeptAnswer | undefined;
  /** Keeps an answer, unless something it depends on changed since its call started, or it is already stale. */
  keep(key: string, answer: KeptAnswer): void;
  count(route: string, result: ConditionalResult): void;
  /** Counts a 200 sent from memory, without a backend call. */
  countServed(route: string): void;
  /** An answer carrying `as_of` (block time `asOfMs`) was sent: observes now minus that time. */
  observeAsOf(route: string, asOfMs: number): void;
  /**
   * Runs `compute` for `key` unless a computation of the same question is already under way, whose
   * outcome is then shared: when a block invalidates every hot answer at once, the requests that
   * arrive before the first new answer is kept wait for one backend call per question, not one each.
   */
  shared<T>(key: string, compute: () => Promise<T>): Promise<T>;
}

/** Estimated heap of a kept answer besides its key's characters: the object, its tag and dependencies. */
const ENTRY_OVERHEAD_BYTES = 256;

export function createConditionalReads(options: ConditionalReadsOptions): ConditionalReads {
  const now = options.now ?? Date.now;
  const clock = new ChangeClock();
  const kept = new LRUCache<string, KeptAnswer>({
    maxSize: options.maxBytes ?? 32 * 1024 * 1024,
    sizeCalculation: (answer, key) => answer.body.length + 2 * key.length + ENTRY_OVERHEAD_BYTES,
  });
  let enabled = false;
  const inFlight = new Map<string, Promise<unknown>>();
  const metrics = conditionalMetrics(options.registry, () => kept.size);
  metrics.enabled.set(0);

  const stillCurrent = (answer: KeptAnswer) =>
    answer.keepUntil > now() && clock.lastChange(answer.dependencies) <= answer.since;

  return {
    blockSeconds: options.blockSeconds,
    clock,
    now,
    cacheOn: () => enabled,
    setSignalsReady(ready) {
      if (ready === enabled) return;
      enabled = ready;
      clock.everythingChanged();
      kept.clear();
      metrics.enabled.set(ready ? 1 : 0);
    },
    current(key) {
      if (!enabled) return undefined;
      const answer = kept.get(key);
      if (answer === undefined) return undefined;
      if (stillCurrent(answer)) return answer;
      kept.delete(key);
      return undefined;
    },
    keep(key, answer) {
      if (enabled && stillCurrent(answer)) kept.set(key, answer);
    },
    count: (route, result) => metrics.reads.inc({ route, result }),
    countServed: (route) => metrics.served.inc({ route }),
    observeAsOf: (route, asOfMs) => metrics.asOfAge.observe({ route }, answerAgeSeconds(asOfMs, now())),
    shared<T>(key: string, compute: () => Promise<T>): Promise<T> {
      const running = inFlight.get(key) as Promise<T> | undefined;
      if (running !== undefined) return running;
      const started = compute().finally(() => inFlight.delete(key));
      inFlight.set(key, started);
      return started;
    },
  };
}

/**
 * How old an answer's `as_of` is when sent, in seconds: now minus its block's time, never below 0
 * (a chain clock ahead of this one, as on a chopsticks devnet, reads as fresh).
 */
export function answerAgeSeconds(asOfMs: number, nowMs: number): number {
  return Math.max(0, (nowMs - asOfMs) / 1_000);
}

/** One of each metric a registry, however many times the gateway's parts are built on it (tests). */
export function metricOnce<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

function conditionalMetrics(registry: Registry, size: () => number) {
  return {
    reads: metricOnce(
      registry,
      "gateway_conditional_reads_total",
      () =>
        new Counter({
          name: "gateway_conditional_reads_total",
          help: "Data API requests with If-None-Match, by route template and how they were answered: 304 proven from the gateway's memory without a backend call (not_modified_cached), 304 after calling the backend (not_modified_after_call), or 200 with a new ETag (modified).",
          labelNames: ["route", "result"],
          registers: [registry],
        }),
    ),
    served: metricOnce(
      registry,
      "gateway_kept_answers_served_total",
      () =>
        new Counter({
          name: "gateway_kept_answers_served_total",
          help: "Data API 200 answers sent from the gateway's memory of a current answer, without a backend call, by route template.",
          labelNames: ["route"],
          registers: [registry],
        }),
    ),
    asOfAge: metricOnce(
      registry,
      "gateway_answer_as_of_age_seconds",
      () =>
        new Histogram({
          name: "gateway_answer_as_of_age_seconds",
          help: "Data API answers carrying as_of (200, and 304 confirming one), by route template: now minus the as_of block's time when sent, never below 0.",
          labelNames: ["route"],
          buckets: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1_800],
          registers: [registry],
        }),
    ),
    enabled: metricOnce(
      registry,
      "gateway_conditional_cache_enabled",
      () =>
        new Gauge({
          name: "gateway_conditional_cache_enabled",
          help: "1 while the gateway proves answers unchanged from memory (its NATS connection is ready), 0 while every conditional request calls the backend.",
          registers: [registry],
        }),
    ),
    entries: metricOnce(
      registry,
      "gateway_conditional_cache_entries",
      () =>
        new Gauge({
          name: "gateway_conditional_cache_entries",
          help: "Answers the gateway keeps to prove If-None-Match current without a backend call.",
          registers: [registry],
          collect() {
            this.set(size());
          },
        }),
    ),
  };
}
