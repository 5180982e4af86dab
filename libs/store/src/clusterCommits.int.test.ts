import { join } from "node:path";
import {
  type RunningRedis,
  type RunningRedisCluster,
  startRedis,
  startRedisCluster,
  tempDir,
  waitFor,
} from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coalesceWrites } from "./coalesceWrites.js";
import { createRedis, type Redis, redisReadiness } from "./createRedis.js";
import { projectionsComplete, redisProjectionMarker } from "./projectionMarker.js";
import { readVersioned, versionedCommit } from "./versionedCommit.js";

/**
 * The store lib's commits and scripts run unchanged on a Redis Cluster (3 primaries, a replica
 * each) and answer exactly as on one standalone server, when every key of a call carries one hash
 * tag (as the read models' do, libs/read-models hashTags.ts). Without a shared tag the cluster
 * refuses the call (CROSSSLOT) rather than half-applying it.
 */

const dir = tempDir("store-cluster");
let cluster: RunningRedisCluster;
let server: RunningRedis;
const clients: Redis[] = [];

/** Two connections per topology: a WATCH needs one of its own. */
async function connect(options: { url: string } | { mode: "cluster"; nodes: string[] }, name: string) {
  const redis = createRedis({ ...options, connectionName: name });
  const own = createRedis({ ...options, connectionName: `${name}-commits` });
  clients.push(redis, own);
  for (const client of [redis, own]) await waitFor(() => redisReadiness(client), { what: `${name} ready` });
  return { redis, own };
}

beforeAll(async () => {
  [cluster, server] = await Promise.all([
    startRedisCluster({ dir: join(dir.path, "cluster"), logDir: join(dir.path, "logs") }),
    startRedis({ dir: join(dir.path, "standalone"), logFile: join(dir.path, "logs", "standalone.log") }),
  ]);
}, 120_000);

afterAll(async () => {
  for (const client of clients) client.disconnect();
  await Promise.all([cluster?.stop(), server?.stop()]);
  dir.remove();
});

/** One projection's keys, all under the tag `{p}` as a read model's are under `{data}` or `{intents}`. */
const key = (name: string) => `rm:{p}:${name}`;
const VERSIONS = key("versions");

/** A run of every pattern; returns what each step answered and what Redis holds afterwards. */
async function scenario(redis: Redis, own: Redis): Promise<unknown[]> {
  const answers: unknown[] = [];
  // versionedCommit: every op kind, expected values and guards, mismatch and conflict.
  answers.push(
    await versionedCommit(redis, {
      versionsKey: VERSIONS,
      expect: [{ key: key("offset:0"), value: undefined }],
      ops: [
        { op: "set", key: key("order:1"), value: Buffer.from([0, 1, 255]) },
        { op: "zadd", key: key("pending"), entries: [1, "a", 2, "b"] },
        { op: "sadd", key: key("tx:1"), members: ["x", "y"] },
        { op: "hreplace", key: key("head"), fields: { block: "7" } },
        { op: "xadd", key: key("changes"), maxLength: 100, fields: ["o", "1"] },
        { op: "set", key: key("offset:0"), value: "7" },
      ],
      bumps: ["o:1", "t:1", key("head")],
    }),
  );
  const read = await readVersioned(redis, VERSIONS, [key("head")], [["hgetall", key("head")]], new Map(), [
    { reads: ["get", "smembers"], namePrefix: "o:", keyPrefixes: [key("order:"), key("tx:")], ids: ["1", "2"] },
  ]);
  // A set's members come in no defined order (and not the same on two servers): sorted here.
  const sorted = (value: unknown) =>
    Array.isArray(value) && value.every((item) => typeof item === "string") ? [...value].sort() : value;
  answers.push(
    [...read.versions],
    read.results,
    [...read.groups[0]!].map(([index, values]) => [index, values.map(sorted)]),
  );
  answers.push(
    await versionedCommit(redis, {
      versionsKey: VERSIONS,
      expect: [{ key: key("offset:0"), value: "6" }],
      ops: [{ op: "del", key: key("order:1") }],
      bumps: ["o:1"],
    }),
  );
  await versionedCommit(redis, {
    versionsKey: VERSIONS,
    ops: [{ op: "set", key: key("order:1"), value: "2" }],
    bumps: ["o:1"],
  });
  answers.push(
    await versionedCommit(redis, {
      versionsKey: VERSIONS,
      guards: read.versions,
      ops: [{ op: "zrem", key: key("pending"), members: ["a"] }],
      bumps: ["o:1"],
    }),
  );
  // WATCH/MULTI/EXEC on an offset, as libs/projection's redisStore commits (its own tests run it on a cluster).
  await own.watch(key("offset:1"));
  answers.push(
    await own.multi().hset(key("head"), "block", "8").sadd(key("tx:2"), "z").set(key("offset:1"), "3").exec(),
  );
  // The projection marker and its compare-and-set script; the markers read together.
  const marker = redisProjectionMarker(redis, key("projection"));
  await marker.setIfAbsent("rebuilding:1");
  answers.push(await marker.replace("rebuilding:0", "complete"), await marker.replace("rebuilding:1", "complete"));
  answers.push(await projectionsComplete(redis, [key("projection")]));
  // Coalesced writes: a turn's commands and a pipeline, each reply in its place.
  const restore = coalesceWrites(redis);
  answers.push(
    await Promise.all([
      redis.get(key("order:1")),
      redis.hget(key("head"), "block"),
      redis.pipeline().smembers(key("tx:2")).zrange(key("pending"), "0", "-1").exec(),
      redis.hmget(VERSIONS, "o:1", "t:1"),
    ]),
  );
  restore();
  // What Redis holds: every key's content (stream ids aside, which are the server clock's).
  const entries = await redis.xrange(key("changes"), "-", "+");
  answers.push(entries.map(([, fields]) => fields));
  answers.push(
    await redis.hgetall(VERSIONS),
    await redis.get(key("offset:0")),
    await redis.get(key("offset:1")),
    await redis.get(key("projection")),
  );
  return answers;
}

describe("the store's commits on a Redis Cluster", () => {
  it("answer and write exactly as on a standalone server", async () => {
    const standalone = await connect({ url: server.url }, "standalone");
    const clustered = await connect({ mode: "cluster", nodes: cluster.nodeList.split(",") }, "cluster");
    const onStandalone = await scenario(standalone.redis, standalone.own);
    const onCluster = await scenario(clustered.redis, clustered.own);
    expect(onCluster).toEqual(onStandalone);
    // The scenario's answers, so an equal failure on both does not pass unseen.
    expect(onStandalone[0]).toEqual({ outcome: "committed" });
    expect(onStandalone[4]).toEqual({ outcome: "mismatch", key: key("offset:0"), actual: "7" });
    expect(onStandalone[5]).toEqual({ outcome: "conflict", key: "o:1" });
    // The WATCHed MULTI went through: head's block was already set by the scenario, tx:2 gained z.
    expect(onStandalone[6]).toEqual([
      [null, 0],
      [null, 1],
      [null, "OK"],
    ]);
    expect(onStandalone.slice(7, 10)).toEqual([false, true, true]);
    // And the keys really live on one primary of the cluster.
    const owners = new Set(
      await Promise.all(
        [VERSIONS, key("order:1"), key("changes")].map(async (name) => (await cluster.primaryOf(name)).port),
      ),
    );
    expect(owners.size).toBe(1);
  });

  it("refuses, and writes nothing of, a commit whose keys are in two slots", async () => {
    const { redis } = await connect({ mode: "cluster", nodes: cluster.nodeList.split(",") }, "cross");
    await expect(
      versionedCommit(redis, {
        versionsKey: VERSIONS,
        ops: [
          { op: "set", key: key("cross"), value: "1" },
          { op: "set", key: "rm:{other}:cross", value: "1" },
        ],
        bumps: ["cross"],
      }),
    ).rejects.toThrow(/CROSSSLOT/);
    expect(await redis.exists(key("cross"))).toBe(0);
    expect(await redis.exists("rm:{other}:cross")).toBe(0);
  });
});
