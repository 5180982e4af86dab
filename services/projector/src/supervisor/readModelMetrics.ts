import type { ChainRef } from "@platform/proto/common/v1/common";
import { Gauge, type Registry } from "prom-client";

/**
 * Where each read model stands after its projection's commits: `read_model_as_of_block`,
 * `read_model_as_of_timestamp_seconds` (the block's own time) and `read_model_as_of_age_seconds`
 * (computed when scraped). Read models are named by projection (`accounts`, `market`, `subnets`),
 * the intents mirror per chain (`intents:<chainId>`).
 */
export interface ReadModelMetrics {
  /** The read model now stands at this block (a reorganisation may take it back). */
  stand(readModel: string, block: number, timestampSeconds: number): void;
  /** As `stand`, unless it already stands at a later block (partitions committed out of step). */
  advance(readModel: string, block: number, timestampSeconds: number): void;
  /** The read model was lost (a rebuild starts): nothing is reported for it (nor for `<readModel>:<chain>`) until it stands again. */
  forget(readModel: string): void;
}

/** Now minus the block's time, in seconds; negative when the chain's clock runs ahead of this one (a chopsticks devnet). */
export function asOfAgeSeconds(timestampSeconds: number, nowMs: number): number {
  return nowMs / 1_000 - timestampSeconds;
}

const byRegistry = new WeakMap<Registry, ReadModelMetrics>();

/** One set per registry, shared by the projections of a process. `now` in ms (tests move it). */
export function readModelMetrics(registry: Registry, now: () => number = Date.now): ReadModelMetrics {
  const existing = byRegistry.get(registry);
  if (existing !== undefined) return existing;
  const stands = new Map<string, { block: number; timestampSeconds: number }>();
  const block = new Gauge({
    name: "read_model_as_of_block",
    help: "The block number the read model stands at (its as_of), after the projection's last commit.",
    labelNames: ["read_model"],
    registers: [registry],
  });
  const timestamp = new Gauge({
    name: "read_model_as_of_timestamp_seconds",
    help: "The time of the block the read model stands at (the chain's clock, unix seconds).",
    labelNames: ["read_model"],
    registers: [registry],
  });
  new Gauge({
    name: "read_model_as_of_age_seconds",
    help: "Now minus the time of the block the read model stands at, when scraped: how old an answer from it is at best. Negative while the chain's clock runs ahead of the wall clock.",
    labelNames: ["read_model"],
    registers: [registry],
    collect() {
      this.reset();
      const at = now();
      for (const [readModel, stand] of stands)
        this.set({ read_model: readModel }, asOfAgeSeconds(stand.timestampSeconds, at));
    },
  });
  const set = (readModel: string, number: number, timestampSeconds: number) => {
    stands.set(readModel, { block: number, timestampSeconds });
    block.set({ read_model: readModel }, number);
    timestamp.set({ read_model: readModel }, timestampSeconds);
  };
  const metrics: ReadModelMetrics = {
    stand(readModel, number, timestampSeconds) {
      if (!Number.isFinite(number) || !Number.isFinite(timestampSeconds)) return;
      set(readModel, number, timestampSeconds);
    },
    advance(readModel, number, timestampSeconds) {
      if (!Number.isFinite(number) || !Number.isFinite(timestampSeconds)) return;
      const current = stands.get(readModel);
      if (current === undefined || number >= current.block) set(readModel, number, timestampSeconds);
    },
    forget(readModel) {
      for (const name of [...stands.keys()])
        if (name === readModel || name.startsWith(`${readModel}:`)) {
          stands.delete(name);
          block.remove({ read_model: name });
          timestamp.remove({ read_model: name });
        }
    },
  };
  byRegistry.set(registry, metrics);
  return metrics;
}

/** Advances the read model to a commit's newest block (a ChainRef: RFC 3339 time), if it folded one. */
export function advanceToRef(
  metrics: ReadModelMetrics | undefined,
  readModel: string,
  ref: ChainRef | undefined,
): void {
  if (metrics === undefined || ref === undefined) return;
  metrics.advance(readModel, Number(ref.blockNumber), Date.parse(ref.blockTimestamp) / 1_000);
}

/**
 * Runs `read` at most once per `intervalMs`, the last call of a burst always honoured (after the
 * interval): a read model's head after every commit of a backlog replay would be a read per batch.
 */
export function throttled(read: () => Promise<void>, intervalMs: number): () => void {
  let last = 0;
  let timer: NodeJS.Timeout | undefined;
  const run = () => {
    last = Date.now();
    read().catch(() => undefined);
  };
  return () => {
    if (timer !== undefined) return;
    const wait = last + intervalMs - Date.now();
    if (wait <= 0) return run();
    timer = setTimeout(() => {
      timer = undefined;
      run();
    }, wait);
    timer.unref();
  };
}
