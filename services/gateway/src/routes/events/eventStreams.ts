import type { Logger } from "@platform/log";
import type { Redis } from "@platform/store";
import { Counter, Gauge, type Registry } from "prom-client";
import type { RateLimiter } from "../../access/rateLimiter.js";
import { createKeyWatch } from "./keyWatch.js";
import type { EventStreams } from "./serveEventStream.js";
import { createStreamSlots } from "./streamSlots.js";

export interface EventStreamsConfig {
  EVENT_STREAMS_PER_KEY: number;
  EVENT_STREAM_HEARTBEAT_MS: number;
  EVENT_STREAM_MAX_BUFFERED_BYTES: number;
  EVENT_STREAM_KEY_CHECK_MS: number;
  EVENT_STREAM_LEASE_MS: number;
  EVENT_REPLAY_EVENTS_PER_UNIT: number;
  EVENT_STREAMS_PER_REPLICA: number;
}

/** The event streams' shared parts: per-key slots in Redis, key checks through the limiter, metrics. */
export function createEventStreams(options: {
  redis: Redis;
  limiter: RateLimiter;
  config: EventStreamsConfig;
  registry: Registry;
  log: Logger;
}): EventStreams & { close(): void } {
  const { config, log } = options;
  const total = new Counter({
    name: "gateway_event_streams_total",
    help: "Event streams by route and outcome: opened, refused (the key's cap or the replica's), left (the client closed before the stream began), dropped (slow client), revoked, expired, ended",
    labelNames: ["route", "outcome"],
    registers: [options.registry],
  });
  const open = new Gauge({
    name: "gateway_event_streams_open",
    help: "Event streams open on this replica, by route",
    labelNames: ["route"],
    registers: [options.registry],
  });
  const running = new Set<() => void>();
  let held = 0;
  const keys = createKeyWatch(options.limiter, config.EVENT_STREAM_KEY_CHECK_MS, (error) =>
    log.warn({ err: error }, "checking the keys of open event streams failed; trying again"),
  );
  return {
    slots: createStreamSlots(options.redis, {
      cap: config.EVENT_STREAMS_PER_KEY,
      leaseMs: config.EVENT_STREAM_LEASE_MS,
    }),
    keys,
    heartbeatMs: config.EVENT_STREAM_HEARTBEAT_MS,
    maxBufferedBytes: config.EVENT_STREAM_MAX_BUFFERED_BYTES,
    replayEventsPerUnit: config.EVENT_REPLAY_EVENTS_PER_UNIT,
    replicaCap: config.EVENT_STREAMS_PER_REPLICA,
    reserve() {
      if (held >= config.EVENT_STREAMS_PER_REPLICA) return undefined;
      held += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held -= 1;
      };
    },
    charge: (keyId, credential, units) =>
      options.limiter.admit(keyId, credential.secretVersion, credential.tier, units),
    log,
    count(route, outcome) {
      total.inc({ route, outcome });
      if (outcome === "opened") open.inc({ route });
      if (outcome === "ended") open.dec({ route });
    },
    track(close) {
      running.add(close);
      return () => running.delete(close);
    },
    closeAll() {
      for (const close of running) close();
    },
    close: () => keys.close(),
  };
}

/**
 * Event streams for a gateway that never serves one (benchmarks, tests of other routes, the OpenAPI
 * document): the routes are mounted and documented, and a stream request is refused as over the cap.
 */
export function unservedEventStreams(log: Logger, cap = 5): EventStreams {
  return {
    slots: { cap, leaseMs: 30_000, take: async () => undefined },
    keys: { watch: () => () => undefined, close: () => undefined },
    heartbeatMs: 15_000,
    maxBufferedBytes: 256 * 1024,
    replayEventsPerUnit: 100,
    replicaCap: 1_000,
    reserve: () => () => undefined,
    charge: async () => ({ kind: "revoked" }),
    log,
    count: () => undefined,
    track: () => () => undefined,
    closeAll: () => undefined,
  };
}
