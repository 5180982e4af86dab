import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  freePort,
  isListening,
  type ManagedProcess,
  type RunningRedis,
  type RunningRedisCluster,
  spawnManaged,
  startRedis,
  startRedisCluster,
  tempDir,
  waitFor,
} from "@platform/testing";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedis, type Redis, redisReadiness } from "./createRedis.js";
import { waitForReplicas } from "./replicaWait.js";

/**
 * createRedis builds the client the configuration names (REDIS_MODE), against real servers: a
 * Redis Cluster (3 primaries, a replica each), and a primary behind a Sentinel; the standalone
 * default is createRedis.int.test.ts.
 */

const dir = tempDir("store-topologies");
let cluster: RunningRedisCluster;
let primary: RunningRedis;
let replica: RunningRedis;
let sentinel: ManagedProcess;
let sentinelPort: number;
const clients: Redis[] = [];

const client = (redis: Redis): Redis => {
  clients.push(redis);
  return redis;
};

beforeAll(async () => {
  cluster = await startRedisCluster({ dir: join(dir.path, "cluster"), logDir: join(dir.path, "logs") });
  primary = await startRedis({ dir: join(dir.path, "primary"), logFile: join(dir.path, "logs", "primary.log") });
  // A replica of the standalone primary, for WAIT (the Sentinel sees it too, which changes nothing here).
  replica = await startRedis({ dir: join(dir.path, "replica"), logFile: join(dir.path, "logs", "replica.log") });
  execFileSync("redis-cli", ["-p", String(replica.port), "REPLICAOF", "127.0.0.1", String(primary.port)]);
  sentinelPort = await freePort();
  // Sentinel rewrites its configuration file as it learns: one of its own, in the test's folder.
  const config = join(dir.path, "sentinel.conf");
  writeFileSync(
    config,
    [
      "bind 127.0.0.1",
      `port ${sentinelPort}`,
      `sentinel monitor platform 127.0.0.1 ${primary.port} 1`,
      "sentinel down-after-milliseconds platform 2000",
      "",
    ].join("\n"),
  );
  sentinel = spawnManaged({
    name: "sentinel",
    command: "redis-server",
    args: [config, "--sentinel"],
    logFile: join(dir.path, "logs", "sentinel.log"),
  });
  await waitFor(() => isListening(sentinelPort), { what: "sentinel listening", timeoutMs: 15_000 });
}, 120_000);

afterAll(async () => {
  for (const redis of clients) redis.disconnect();
  await sentinel?.stop();
  await replica?.stop();
  await primary?.stop();
  await cluster?.stop();
  dir.remove();
});

describe("createRedis by topology", () => {
  it("cluster: a Cluster client that routes each key to its slot's primary, ready once it has the slot map", async () => {
    const redis = client(
      createRedis({ mode: "cluster", nodes: [cluster.nodeList.split(",")[0]!], connectionName: "c" }),
    );
    expect(redis).toBeInstanceOf(Cluster);
    await waitFor(() => redisReadiness(redis), { what: "cluster client ready", timeoutMs: 30_000 });
    // Keys in every primary's slots, from a client given one node only.
    const keys = ["a", "b", "c", "d", "e", "f"].map((name) => `topology:${name}`);
    for (const key of keys) await redis.set(key, key);
    expect(await Promise.all(keys.map((key) => redis.get(key)))).toEqual(keys);
    const owners = new Set(await Promise.all(keys.map(async (key) => (await cluster.primaryOf(key)).port)));
    expect(owners.size).toBeGreaterThan(1);
    // Multi-key commands within one hash tag pass; across slots Redis refuses them.
    expect(await redis.multi().set("t:{p}:a", "1").incr("t:{p}:n").exec()).toEqual([
      [null, "OK"],
      [null, 1],
    ]);
    await expect(redis.mget("t:{p}:a", "t:{q}:a")).rejects.toThrow(/CROSSSLOT|same slot/i);
  });

  it("cluster: fails fast while the cluster is unreachable, like a standalone connection", async () => {
    const redis = client(
      createRedis({ mode: "cluster", nodes: ["127.0.0.1:1"], connectionName: "nowhere", commandTimeoutMs: 500 }),
    );
    const started = Date.now();
    await expect(redis.get("x")).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(await redisReadiness(redis, 200)).toBe(false);
  });

  it("cluster with REDIS_READ_FROM=replicas: reads go to replicas, writes to primaries", async () => {
    const nodes = cluster.nodeList.split(",");
    const redis = client(
      createRedis({ mode: "cluster", nodes, readFrom: "replicas", connectionName: "replica-reads" }),
    );
    await waitFor(() => redisReadiness(redis), { what: "cluster client ready", timeoutMs: 30_000 });
    const members = await cluster.members();
    const replicas = members.filter((member) => member.role === "replica" && !member.failing);
    const getsOn = (port: number) =>
      Number(
        /cmdstat_get:calls=(\d+)/.exec(
          execFileSync("redis-cli", ["-p", String(port), "INFO", "commandstats"], { encoding: "utf8" }),
        )?.[1] ?? 0,
      );
    const before = replicas.map((replica) => getsOn(replica.port));
    await redis.set("replicated:{r}", "1");
    await waitFor(async () => (await redis.get("replicated:{r}")) === "1", {
      what: "replicated value",
      timeoutMs: 5_000,
    });
    const after = replicas.map((replica) => getsOn(replica.port));
    expect(after.reduce((sum, n) => sum + n, 0)).toBeGreaterThan(before.reduce((sum, n) => sum + n, 0));
  });

  it("sentinel: connects to the primary the Sentinel names, ready and writable", async () => {
    const redis = client(
      createRedis({
        mode: "sentinel",
        sentinels: [`127.0.0.1:${sentinelPort}`],
        sentinelName: "platform",
        connectionName: "via-sentinel",
      }),
    );
    await waitFor(() => redisReadiness(redis), { what: "sentinel-managed primary ready", timeoutMs: 10_000 });
    expect(await redis.set("via:sentinel", "1")).toBe("OK");
    expect(
      execFileSync("redis-cli", ["-p", String(primary.port), "GET", "via:sentinel"], { encoding: "utf8" }).trim(),
    ).toBe("1");
  });

  it("names what a topology lacks", () => {
    expect(() => createRedis({ connectionName: "x" })).toThrow(/standalone Redis connection needs url/);
    expect(() => createRedis({ mode: "cluster", connectionName: "x" })).toThrow(/cluster Redis connection needs nodes/);
    expect(() => createRedis({ mode: "sentinel", sentinels: ["127.0.0.1:1"], connectionName: "x" })).toThrow(
      /sentinelName/,
    );
  });
});

describe("waitForReplicas (WAIT on the connection that wrote)", () => {
  const linkUp = (port: number) =>
    execFileSync("redis-cli", ["-p", String(port), "INFO", "replication"], { encoding: "utf8" }).includes(
      "master_link_status:up",
    );

  it("standalone: a primary's write is acknowledged by its replica", async () => {
    await waitFor(async () => linkUp(replica.port), { what: "the replica in sync", timeoutMs: 15_000 });
    const redis = client(createRedis({ url: primary.url, connectionName: "waits" }));
    await waitFor(() => redisReadiness(redis), { what: "primary ready", timeoutMs: 10_000 });
    await redis.set("waited:standalone", "1");
    const ack = await waitForReplicas(redis, "waited:standalone", { replicas: 1, timeoutMs: 5_000 });
    expect(ack).toMatchObject({ wanted: 1, acknowledged: 1 });
    expect(
      execFileSync("redis-cli", ["-p", String(replica.port), "GET", "waited:standalone"], { encoding: "utf8" }).trim(),
    ).toBe("1");
    // Nothing wanted, nothing asked.
    expect(await waitForReplicas(redis, "waited:standalone", { replicas: 0, timeoutMs: 5_000 })).toEqual({
      wanted: 0,
      acknowledged: 0,
      elapsedMs: 0,
    });
  });

  it("cluster: waits on the primary serving the key's slot, and comes back short after its timeout while that replica is away", async () => {
    const redis = client(createRedis({ mode: "cluster", nodes: cluster.nodeList.split(","), connectionName: "waits" }));
    await waitFor(() => redisReadiness(redis), { what: "cluster client ready", timeoutMs: 30_000 });
    // Keys on every primary: each is waited for where it was written.
    for (const name of ["a", "b", "c", "d", "e", "f"]) {
      const key = `waited:{${name}}`;
      await redis.set(key, name);
      expect(await waitForReplicas(redis, key, { replicas: 1, timeoutMs: 5_000 })).toMatchObject({ acknowledged: 1 });
    }
    const key = "waited:{a}";
    const owner = await cluster.primaryOf(key);
    const members = await cluster.members();
    const ownerId = members.find((member) => member.port === owner.port)!.id;
    const itsReplica = members.find((member) => member.role === "replica" && member.primaryId === ownerId)!;
    // Paused for far less than cluster-node-timeout: no failover, only a replica that does not answer.
    cluster.pause(itsReplica.port);
    try {
      await redis.set(key, "while away");
      const ack = await waitForReplicas(redis, key, { replicas: 1, timeoutMs: 300 });
      expect(ack.acknowledged).toBe(0);
      expect(ack.elapsedMs).toBeGreaterThanOrEqual(250);
    } finally {
      cluster.resume(itsReplica.port);
    }
    expect(await waitForReplicas(redis, key, { replicas: 1, timeoutMs: 10_000 })).toMatchObject({ acknowledged: 1 });
  });
});
