import type { Logger } from "@platform/log";
import type { DependencyCheck, ReadinessSnapshot } from "@platform/runtime";
import { connectSignals, type Signals } from "@platform/signals";
import type { Registry } from "prom-client";
import { cacheFollowsReadiness, followChangeSignals } from "./changeSignals.js";
import { type ConditionalReads, createConditionalReads } from "./conditionalReads.js";

export interface ConnectedConditionalReads {
  reads: ConditionalReads;
  /** The NATS connection the change signals arrive on, when NATS is configured (others may share it). */
  signals: Signals | undefined;
  /** `nats` for /readyz, not required: NATS down only turns the cache off. Empty without NATS. */
  checks: DependencyCheck[];
  /** For readiness.onChange: the cache is on while the `nats` check answers. */
  onReadiness(snapshot: ReadinessSnapshot): void;
  close(): Promise<void>;
}

/**
 * The gateway's conditional reads as main.ts runs them: answers fresh for `blockSeconds` at most,
 * proven unchanged from memory while the projections' change signals arrive over NATS (`natsUrl`),
 * and never without it.
 */
export function connectConditionalReads(options: {
  natsUrl: string | undefined;
  /** The gateway's own NATS user (NATS_USERNAME, NATS_PASSWORD), when the server has users. */
  natsUser?: string | undefined;
  natsPassword?: string | undefined;
  blockSeconds: number;
  /** Bound on the kept answers (KEPT_ANSWERS_MAX_BYTES). */
  maxBytes?: number;
  registry: Registry;
  log: Logger;
}): ConnectedConditionalReads {
  const { log, registry } = options;
  const reads = createConditionalReads({
    blockSeconds: options.blockSeconds,
    registry,
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
  });
  if (options.natsUrl === undefined) {
    log.warn("no NATS_URL: every conditional Data API read calls data-query");
    return { reads, signals: undefined, checks: [], onReadiness: () => undefined, close: async () => undefined };
  }
  const signals = connectSignals({
    servers: [options.natsUrl],
    user: options.natsUser,
    password: options.natsPassword,
    name: "gateway",
    onError: (error) => log.debug({ err: error }, "nats connection problem"),
  });
  const unsubscribe = followChangeSignals(signals, reads, registry);
  return {
    reads,
    signals,
    checks: [{ name: "nats", probe: () => signals.ready(1_000), required: false }],
    onReadiness: cacheFollowsReadiness(reads, log),
    async close() {
      unsubscribe();
      await signals.close();
    },
  };
}
