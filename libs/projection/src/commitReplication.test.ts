import { Writable } from "node:stream";
import { createLogger } from "@platform/log";
import type { Redis } from "@platform/store";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { commitReplication } from "./commitReplication.js";

// What a commit does with WAIT's answer: observed always, counted and logged when short. WAIT
// itself, on real servers and a real cluster, is libs/store topologies.int.test.ts.

/** A standalone connection whose WAIT answers `acknowledged`, recording its arguments. */
function waitingRedis(acknowledged: number) {
  const calls: Array<[number, number]> = [];
  const redis = {
    wait: async (replicas: number, timeoutMs: number) => {
      calls.push([replicas, timeoutMs]);
      return acknowledged;
    },
  } as unknown as Redis;
  return { redis, calls };
}

async function metric(registry: Registry, name: string): Promise<number> {
  const found = (await registry.getMetricsAsJSON()).find((entry) => entry.name === name);
  const values = (found?.values ?? []) as Array<{ metricName?: string; value: number }>;
  return values
    .filter(
      (value) => value.metricName === undefined || value.metricName === `${name}_count` || value.metricName === name,
    )
    .reduce((sum, value) => sum + value.value, 0);
}

describe("commitReplication", () => {
  it("is none when no replica is wanted", () => {
    const log = createLogger({ service: "t", level: "silent" });
    expect(commitReplication({ replicas: 0, timeoutMs: 100 }, { projection: "market", log })).toBeUndefined();
  });

  it("asks WAIT for the configured replicas and timeout, and counts nothing when they acknowledge", async () => {
    const registry = new Registry();
    const log = createLogger({ service: "t", level: "silent" });
    const replication = commitReplication({ replicas: 1, timeoutMs: 750 }, { projection: "market", log, registry })!;
    const { redis, calls } = waitingRedis(1);
    await replication.settle(redis, "rm:{data}:market:offset:t:0");
    expect(calls).toEqual([[1, 750]]);
    expect(await metric(registry, "projector_replica_wait_seconds")).toBe(1);
    expect(await metric(registry, "projector_replica_wait_short_total")).toBe(0);
  });

  it("goes on when WAIT comes back short, counting it and saying so", async () => {
    const registry = new Registry();
    const lines: string[] = [];
    const log = createLogger({
      service: "t",
      level: "warn",
      destination: new Writable({
        write(chunk, _encoding, callback) {
          lines.push(String(chunk));
          callback();
        },
      }),
    });
    const replication = commitReplication({ replicas: 2, timeoutMs: 50 }, { projection: "subnets", log, registry })!;
    await replication.settle(waitingRedis(1).redis, "rm:{data}:subnets:offset:t:0");
    expect(await metric(registry, "projector_replica_wait_short_total")).toBe(1);
    expect(lines.join("")).toMatch(/not on enough replicas/);
    expect(lines.join("")).toMatch(/"acknowledged":1/);
  });
});
