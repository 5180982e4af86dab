import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Metadata, status } from "@grpc/grpc-js";
import { loadConfig } from "@platform/config";
import { AppError } from "@platform/errors";
import { callUnary } from "@platform/grpc";
import { createLogger } from "@platform/log";
import { createRedis, type Redis, redisReadiness, waitForReplicas } from "@platform/store";
import {
  freePort,
  type RunningKafka,
  type RunningRedisCluster,
  startKafka,
  startRedisCluster,
  tempDir,
  waitFor,
} from "@platform/testing";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tcConfigSchema } from "./config.js";
import { tcKeys } from "./keys.js";
import { type ServedTc, serveTc } from "./testSupport/serveTc.js";
import { siweMessageFor } from "./testSupport/siweMessageFor.js";

/*
 * tc on a Redis Cluster (3 primaries, a replica each) and a Kafka broker of its own: acceptances
 * recorded and read back, the projection rebuilt after the cluster loses everything, and carried
 * through a kill -9 of the primary that holds it. Its commits and reads stay on one slot because
 * every projection key carries `{tc}` (keys.ts, keySlots.test.ts). Own servers, not the service
 * test's: two tc projections on different Redis in one consumer group would split the partitions.
 */

const CHAIN = 31337;
const dir = tempDir("tc-cluster");
const chainsFile = join(dir.path, "chains.json");
const log = createLogger({ service: "tc-cluster-test", level: "silent" });

let kafka: RunningKafka;
let cluster: RunningRedisCluster;
let redis: Redis;
let served: ServedTc;

beforeAll(async () => {
  [kafka, cluster] = await Promise.all([
    startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") }),
    startRedisCluster({ dir: join(dir.path, "cluster"), logDir: join(dir.path, "logs") }),
  ]);
  // EOA signatures need no chain: the one chain messages may name has nobody at its RPC.
  writeFileSync(
    chainsFile,
    JSON.stringify({
      environment: "test",
      chains: [
        {
          name: "live",
          chainId: CHAIN,
          rpcUrl: `http://127.0.0.1:${await freePort()}`,
          roles: ["origin"],
          blockTimeMs: 1_000,
          finality: { safeDepth: 0, finalizedDepth: 0 },
          rpc: { timeoutMs: 2_000, retryCount: 0, retryDelayMs: 0 },
        },
      ],
    }),
  );
  const config = loadConfig(tcConfigSchema, {
    REDIS_MODE: "cluster",
    REDIS_NODES: cluster.nodeList,
    KAFKA_BROKERS: kafka.brokers.join(","),
    KAFKA_REPLICATION_FACTOR: "1",
    TC_CURRENT_VERSION: "2",
    CHAINS_FILE: chainsFile,
    SIWE_DOMAIN: "127.0.0.1:8080",
    SIWE_URI: "http://127.0.0.1:8080",
    SIWE_CHAIN_IDS: String(CHAIN),
  });
  served = await serveTc(config, log);
  redis = createRedis({ mode: "cluster", nodes: cluster.nodeList.split(","), connectionName: "tc-cluster-test" });
  await waitFor(ready, { what: "tc ready on the cluster", timeoutMs: 60_000, intervalMs: 100 });
}, 180_000);

afterAll(async () => {
  await served?.stop().catch(() => undefined);
  redis?.disconnect();
  await Promise.all([cluster?.stop(), kafka?.stop()]);
  dir.remove();
}, 60_000);

async function ready(): Promise<boolean> {
  return (await Promise.all(served.components.dependencies.map((check) => check.probe()))).every(Boolean);
}

async function acceptAs(account: PrivateKeyAccount) {
  const { tc } = served;
  const offer = await callUnary(tc, tc.issueNonce, { walletAddress: account.address }, new Metadata());
  const message = siweMessageFor(offer, account.address, CHAIN);
  const signature = await account.signMessage({ message });
  return callUnary(tc, tc.accept, { message, signature }, new Metadata());
}

const statusOf = (account: PrivateKeyAccount) =>
  callUnary(served.tc, served.tc.getStatus, { walletAddress: account.address }, new Metadata());

/** Every wallet's status, or undefined while tc answers UNAVAILABLE (a rebuild, a failover). */
async function statusesOf(accounts: PrivateKeyAccount[]) {
  try {
    return await Promise.all(accounts.map(statusOf));
  } catch (error) {
    if (error instanceof AppError && error.grpcStatus === status.UNAVAILABLE) return undefined;
    throw error;
  }
}

const wallets = [0, 1, 2].map(() => privateKeyToAccount(generatePrivateKey()));
const stranger = privateKeyToAccount(generatePrivateKey());

describe("tc on a Redis Cluster", () => {
  it("records acceptances and reads them back, the projection's keys on one primary", async () => {
    for (const wallet of wallets) {
      const accepted = await acceptAs(wallet);
      // Read-your-writes: Accept answered once the projection's offset on the cluster reached it.
      expect(await statusOf(wallet)).toEqual({
        walletAddress: wallet.address,
        currentTcVersion: 2,
        accepted: true,
        acceptedVersion: 2,
        acceptedAt: accepted.acceptedAt,
      });
    }
    expect(await statusOf(stranger)).toMatchObject({ accepted: false });
    const holder = await cluster.primaryOf(tcKeys.marker);
    for (const key of [tcKeys.wallet(wallets[0]!.address), tcKeys.offset("tc.acceptances.v1", 0)])
      expect((await cluster.primaryOf(key)).port).toBe(holder.port);
    expect(await redis.get(tcKeys.marker)).toBe("complete");
  });

  it("rebuilds from Kafka after every node loses everything, answering UNAVAILABLE meanwhile", async () => {
    const before = await statusesOf([...wallets, stranger]);
    const primaries = (await cluster.members()).filter((member) => member.role === "primary");
    for (const { port } of primaries) {
      const node = createRedis({ url: cluster.node(port).url, connectionName: "tc-cluster-test-flush" });
      await waitFor(() => redisReadiness(node), { what: `node ${port} connected` });
      await node.flushall();
      node.disconnect();
    }
    const during = await statusesOf([wallets[0]!]);
    expect(during).toBeUndefined();
    const after = await waitFor(() => statusesOf([...wallets, stranger]), {
      what: "the projection rebuilt on the cluster",
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    expect(after).toEqual(before);
  });

  it("carries on through a kill -9 of the primary that holds the projection, with every acceptance", async () => {
    const late = privateKeyToAccount(generatePrivateKey());
    await acceptAs(late);
    const before = await statusesOf([...wallets, late, stranger]);
    // tc does not WAIT for replicas after its commits (the projector does, REDIS_WAIT_REPLICAS): a
    // fence written in the slot after them, once a replica has it, says the replica has them too
    // (one replication stream, in order), so the kill tests the promotion, not replication's race.
    const fence = `${tcKeys.marker}:test-fence`;
    await redis.set(fence, "1");
    expect((await waitForReplicas(redis, fence, { replicas: 1, timeoutMs: 10_000 })).acknowledged).toBe(1);
    const holder = await cluster.primaryOf(tcKeys.marker);
    await cluster.kill(holder.port);
    await cluster.waitUntilOk(60_000);
    const after = await waitFor(() => statusesOf([...wallets, late, stranger]), {
      what: "tc answering after the failover",
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    expect(after).toEqual(before);
    await waitFor(ready, { what: "tc ready after the failover", timeoutMs: 60_000, intervalMs: 250 });
  });
});
