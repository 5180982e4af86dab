import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type { ProjectionBatch } from "@platform/bus";
import { createLogger } from "@platform/log";
import { type CommitReplication, commitReplication, redisStore } from "@platform/projection";
import { accountsKeys, dataChangeLog, marketKeys, readModelVersionKeys } from "@platform/read-models";
import type { Signals } from "@platform/signals";
import { createRedis, type Redis, redisReadiness } from "@platform/store";
import { type RunningRedisCluster, startRedisCluster, tempDir, waitFor } from "@platform/testing";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HEAD_MOVED, headArguments, headKeys, MOVE_HEAD_SCRIPT } from "../accounts/head.js";

import { queueMembership, queueRemovals } from "./subnetRemovals.js";

/**
 * The projector's own commit pieces on a Redis Cluster (3 primaries, a replica each), with the
 * read models' real key layouts: libs/projection's redisStore (WATCH/MULTI/EXEC with its offset and version keys),
 * the accounts head script (which appends to the data change log), and the subnet-removal scripts.
 * Each runs inside one MULTI, which a cluster accepts only because the keys share `{data}`.
 */

const log = createLogger({ service: "projector-cluster-test", level: "silent" });
const dir = tempDir("projector-cluster");
let cluster: RunningRedisCluster;
let redis: Redis;

beforeAll(async () => {
  cluster = await startRedisCluster({ dir: join(dir.path, "cluster"), logDir: join(dir.path, "logs") });
  redis = createRedis({ mode: "cluster", nodes: cluster.nodeList.split(","), connectionName: "projector" });
  await waitFor(() => redisReadiness(redis), { what: "cluster client ready" });
}, 120_000);

afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
  dir.remove();
});

const batch = (previousOffset: string | undefined, lastOffset: string): ProjectionBatch => ({
  topic: "chain.network.v1",
  partition: 0,
  messages: [],
  previousOffset,
  lastOffset,
  heartbeat: async () => undefined,
});

/** The batch applied by a Redis store with the read model's keys: one record at its last offset. */
async function commit(
  keys: { offset: string; version: string },
  prepare: () => Promise<(multi: ReturnType<Redis["multi"]>) => void>,
  applied: ProjectionBatch,
  signal?: { signals: Signals; replication: CommitReplication | undefined },
): Promise<number> {
  const store = redisStore<string>({
    redis,
    log,
    offsetKey: () => keys.offset,
    versionKey: keys.version,
    prepare,
    replication: signal?.replication,
    onCommit: () => signal?.signals.publish("readmodel.changed.market", {}),
  });
  return (await store.apply(applied, [{ offset: applied.lastOffset, changes: ["c"] }])).length;
}

describe("the projector's commits on a Redis Cluster", () => {
  it("commits a market batch with removals and membership checks, its offset and version, exactly once", async () => {
    const keys = { offset: marketKeys.offset("chain.network.v1", 0), version: readModelVersionKeys.market };
    const prepare = async () => (multi: ReturnType<Redis["multi"]>) => {
      multi.zadd(marketKeys.poolPoints(7), 500_000_00000, "point");
      queueRemovals(multi, marketKeys.removedSubnets, [{ kind: "subnetRemoved", netuid: 8, block: 400, hash: "0xAB" }]);
      for (const netuid of [7, 8])
        queueMembership(multi, {
          seriesKeys: [marketKeys.poolPoints(netuid)],
          setKey: marketKeys.pools,
          removalsKey: marketKeys.removedSubnets,
          netuid,
        });
    };
    expect(await commit(keys, prepare, batch(undefined, "5"))).toBe(1);
    expect(await redis.get(keys.offset)).toBe("5");
    const version = await redis.get(keys.version);
    expect(version).toMatch(/^[0-9a-f-]{36}$/);
    expect(await redis.smembers(marketKeys.pools)).toEqual(["7"]);
    expect(await redis.hget(marketKeys.removedSubnets, "8")).toBe("400:0xab");
    // The same batch again (a rebalance overlap) applies nothing: the stored offset moved on.
    expect(await commit(keys, prepare, batch(undefined, "5"))).toBe(0);
    expect(await redis.get(keys.version)).toBe(version);
  });

  it("clears a batch's WATCH on the node that holds it when the store gives up before EXEC", async () => {
    const keys = { offset: marketKeys.offset("chain.network.v1", 9), version: readModelVersionKeys.market };
    await redis.set(keys.offset, "1");
    // The batch continues from offset 4: the store stands behind it and refuses after WATCH, before MULTI.
    await expect(commit(keys, async () => () => undefined, batch("4", "5"))).rejects.toThrow(/stands at 1/);
    await redis.set(keys.offset, "3");
    // A watch left behind on the offset's node would make this EXEC fail (answer null).
    expect(await redis.multi().set(marketKeys.offset("chain.network.v1", 9), "4").exec()).toEqual([[null, "OK"]]);
  });

  it("moves the accounts head with the script, appending the move to the data change log", async () => {
    const member = (block: number) =>
      JSON.stringify({
        chainId: "964",
        blockNumber: String(block),
        blockHash: `0x${block}`,
        timestamp: "2030-01-01T00:00:00.000Z",
      });
    const keys = headKeys([accountsKeys.blocks(0), accountsKeys.blocks(1)]);
    const move = async (partition: number, block: number) => {
      const args = headArguments(partition, [
        { kind: "block", partition, number: String(block), member: member(block) },
      ])!;
      const result = await redis
        .multi()
        .eval(MOVE_HEAD_SCRIPT, keys.length, ...keys, ...args)
        .exec();
      return result?.[0]?.[1];
    };
    const before = await redis.xlen(dataChangeLog.key);
    expect(await move(0, 10)).toBe(0); // partition 1 has delivered no block yet
    expect(await move(1, 9)).toBe(HEAD_MOVED);
    expect(await redis.hget(accountsKeys.head, "blockNumber")).toBe("9");
    expect(await move(1, 11)).toBe(HEAD_MOVED);
    expect(await redis.hget(accountsKeys.head, "blockNumber")).toBe("10");
    expect(await redis.xlen(dataChangeLog.key)).toBe(before + 2);
  });
});

describe("a commit's replicas before its signal, on a Redis Cluster", () => {
  const keys = { offset: marketKeys.offset("chain.network.v1", 1), version: readModelVersionKeys.market };
  const prepare = async () => (multi: ReturnType<Redis["multi"]>) => void multi.zadd(marketKeys.poolPoints(9), 1, "p");
  const announced: string[] = [];
  const signals = {
    publish: (subject: string) => {
      announced.push(subject);
      return true;
    },
  } as unknown as Signals;

  it("signals once the offset's replica has the commit, and only after WAIT's timeout while that replica is away", async () => {
    const registry = new Registry();
    const replication = commitReplication({ replicas: 1, timeoutMs: 400 }, { projection: "market", log, registry });
    const owner = await cluster.primaryOf(keys.offset);
    const members = await cluster.members();
    const ownerId = members.find((member) => member.port === owner.port)!.id;
    const replica = members.find((member) => member.role === "replica" && member.primaryId === ownerId)!;
    // A replica answers reads of its primary's slots once the connection says READONLY.
    const onReplica = () =>
      execFileSync("redis-cli", ["-p", String(replica.port)], {
        input: `READONLY\nGET ${keys.offset}\n`,
        encoding: "utf8",
      })
        .trim()
        .split("\n")
        .at(-1);

    await commit(keys, prepare, batch(undefined, "3"), { signals, replication });
    // WAIT returned 1: the replica holds the offset the signal announced, read at once.
    expect(onReplica()).toBe("3");
    expect(announced).toEqual(["readmodel.changed.market"]);

    cluster.pause(replica.port);
    try {
      const started = Date.now();
      await commit(keys, prepare, batch("3", "4"), { signals, replication });
      expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    } finally {
      cluster.resume(replica.port);
    }
    expect(announced).toHaveLength(2);
    const short = (await registry.getSingleMetric("projector_replica_wait_short_total")?.get())?.values[0]?.value;
    expect(short).toBe(1);
  });
});
