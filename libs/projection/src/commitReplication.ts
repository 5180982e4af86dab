import type { Logger } from "@platform/log";
import { type Redis, type ReplicaWait, waitForReplicas } from "@platform/store";
import { Counter, Histogram, type Registry } from "prom-client";

/**
 * What a projection does between a commit's EXEC and its change signal: wait until the commit is on
 * the configured number of replicas (REDIS_WAIT_REPLICAS, WAIT). Redis replicates asynchronously,
 * so a primary that dies loses its latest writes; with this wait a projection is never more than
 * one commit ahead of its replica, the signal goes out for state a replica holds, and what a
 * failover can lose is at most the commit in flight, which the projection applies again from Kafka
 * (its stored offset went back with it). docs/deployment.md "Failover: no answer goes back".
 */
export interface CommitReplication {
  /** Resolves once the writes `redis` has sent so far, among them `key`'s, are on the replicas, or WAIT timed out (logged, counted). */
  settle(redis: Redis, key: string): Promise<void>;
}

interface ReplicaWaitMetrics {
  seconds: Histogram<"projection">;
  short: Counter<"projection">;
}

const byRegistry = new WeakMap<Registry, ReplicaWaitMetrics>();

function metricsOf(registry: Registry): ReplicaWaitMetrics {
  const existing = byRegistry.get(registry);
  if (existing !== undefined) return existing;
  const metrics: ReplicaWaitMetrics = {
    seconds: new Histogram({
      name: "projector_replica_wait_seconds",
      help: "How long a commit waited for its replicas (WAIT) before its change signal went out.",
      labelNames: ["projection"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    short: new Counter({
      name: "projector_replica_wait_short_total",
      help: "Commits whose WAIT timed out with fewer replicas than REDIS_WAIT_REPLICAS: a failover now could lose them (they are then applied again from Kafka).",
      labelNames: ["projection"],
      registers: [registry],
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}

/** None when `wait.replicas` is 0 (the default: a standalone Redis has no replica to wait for). */
export function commitReplication(
  wait: ReplicaWait,
  options: { projection: string; log: Logger; registry?: Registry | undefined },
): CommitReplication | undefined {
  if (wait.replicas <= 0) return undefined;
  const { projection, log } = options;
  const metrics = options.registry === undefined ? undefined : metricsOf(options.registry);
  return {
    async settle(redis, key) {
      const ack = await waitForReplicas(redis, key, wait);
      metrics?.seconds.observe({ projection }, ack.elapsedMs / 1_000);
      if (ack.acknowledged >= ack.wanted) return;
      // Going on without them keeps the read model moving while a replica is away (availability);
      // the counter and this line say the guarantee is off meanwhile.
      metrics?.short.inc({ projection });
      log.warn(
        { projection, wanted: ack.wanted, acknowledged: ack.acknowledged, timeoutMs: wait.timeoutMs },
        "commit not on enough replicas within the wait; going on",
      );
    },
  };
}

/** The replication a projection's start options ask for (`replicaWait`), labelled with the projection. */
export function replicationFor(
  projection: string,
  options: { replicaWait?: ReplicaWait | undefined; log: Logger; registry?: Registry | undefined },
): CommitReplication | undefined {
  if (options.replicaWait === undefined) return undefined;
  return commitReplication(options.replicaWait, { projection, log: options.log, registry: options.registry });
}
