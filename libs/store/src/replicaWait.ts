import { Cluster } from "ioredis";
import type { Redis, RedisNode } from "./createRedis.js";
import { redisKeySlot } from "./keySlot.js";

/** How many replicas must hold a commit before it counts as visible, and how long to wait for them. */
export interface ReplicaWait {
  /** Replicas that must acknowledge; 0 waits for nothing. */
  replicas: number;
  /** WAIT's own timeout: past it, the commit goes on with the replicas it has. */
  timeoutMs: number;
}

export interface ReplicaAck {
  wanted: number;
  /** Replicas that acknowledged every write this connection had sent (WAIT's reply). */
  acknowledged: number;
  elapsedMs: number;
}

/**
 * WAIT for the writes this connection sent so far, on the connection that sent the write of `key`.
 * WAIT counts the replicas that acknowledged everything the connection wrote, so it must run on
 * that very connection: for a standalone (or Sentinel-managed) primary that is the client itself;
 * on a cluster, the connection to the primary serving `key`'s slot (ioredis keeps one per node, and
 * WAIT, naming no key, would otherwise go to any node). Never throws for a short count: Redis
 * replication is asynchronous, and what to do with fewer replicas is the caller's decision.
 */
export async function waitForReplicas(redis: Redis, key: string, wait: ReplicaWait): Promise<ReplicaAck> {
  if (wait.replicas <= 0) return { wanted: 0, acknowledged: 0, elapsedMs: 0 };
  const started = performance.now();
  const connection = redis instanceof Cluster ? primaryConnection(redis, key) : redis;
  const acknowledged = await connection.wait(wait.replicas, wait.timeoutMs);
  return { wanted: wait.replicas, acknowledged, elapsedMs: performance.now() - started };
}

function primaryConnection(cluster: Cluster, key: string): RedisNode {
  const owner = cluster.slots[redisKeySlot(key)]?.[0];
  const node = cluster
    .nodes("master")
    .find((candidate) => `${candidate.options.host}:${candidate.options.port}` === owner);
  if (node === undefined) throw new Error(`no connection to the primary of ${key}'s slot (${owner ?? "unknown"})`);
  return node;
}
