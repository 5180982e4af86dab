import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningRedisCluster, startRedisCluster } from "./redisCluster.js";
import { tempDir } from "./tempDir.js";

/* The helper itself; what the store lib and the services do on it: libs/store/src/*.cluster.int.test.ts. */

const dir = tempDir("redis-cluster");
let cluster: RunningRedisCluster;

const cli = (port: number, ...args: string[]) =>
  execFileSync("redis-cli", ["-p", String(port), ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();

beforeAll(async () => {
  cluster = await startRedisCluster({
    primaries: 3,
    replicasPerPrimary: 1,
    dir: join(dir.path, "data"),
    logDir: join(dir.path, "logs"),
  });
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
  dir.remove();
});

describe("startRedisCluster", () => {
  it("joins three primaries with a replica each, every node at cluster_state:ok", async () => {
    expect(cluster.nodes).toHaveLength(6);
    const members = await cluster.members();
    const primaries = members.filter((member) => member.role === "primary");
    const replicas = members.filter((member) => member.role === "replica");
    expect(primaries).toHaveLength(3);
    expect(replicas).toHaveLength(3);
    // Each primary has its own replica.
    expect(new Set(replicas.map((replica) => replica.primaryId))).toEqual(new Set(primaries.map((p) => p.id)));
    for (const node of cluster.nodes) expect(cli(node.port, "CLUSTER", "INFO")).toContain("cluster_state:ok");
    expect(cluster.nodeList.split(",")).toHaveLength(6);
  });

  it("names the primary that owns a key's slot: it takes the key, the others redirect", async () => {
    for (const key of ["rm:{data}:accounts:head", "rm:{intents}:projection", "auth:key:{ak_1}"]) {
      const owner = await cluster.primaryOf(key);
      expect(cli(owner.port, "SET", key, "1")).toBe("OK");
      const other = cluster.nodes.find(
        (node) => node.port !== owner.port && cli(node.port, "ROLE").startsWith("master"),
      )!;
      expect(cli(other.port, "SET", key, "2")).toMatch(/^MOVED \d+ 127\.0\.0\.1:\d+/);
    }
  });

  it("a killed primary's replica takes its slots over, and the cluster is ok again", async () => {
    const key = "rm:{data}:failover";
    const owner = await cluster.primaryOf(key);
    expect(cli(owner.port, "SET", key, "before")).toBe("OK");
    cli(owner.port, "WAIT", "1", "2000");
    const startedAt = Date.now();
    await cluster.kill(owner.port);
    await cluster.waitUntilOk(30_000);
    const promoted = await cluster.primaryOf(key);
    expect(promoted.port).not.toBe(owner.port);
    expect(cli(promoted.port, "GET", key)).toBe("before");
    // cluster-node-timeout 2 s: the failure is detected and the replica elected within seconds.
    expect(Date.now() - startedAt).toBeLessThan(20_000);
  }, 40_000);

  it("pauses and resumes a node (SIGSTOP / SIGCONT)", async () => {
    const members = await cluster.members();
    const replica = members.find((member) => member.role === "replica" && !member.failing)!;
    cluster.pause(replica.port);
    expect(() => execFileSync("redis-cli", ["-p", String(replica.port), "PING"], { timeout: 1_000 })).toThrow();
    cluster.resume(replica.port);
    expect(cli(replica.port, "PING")).toBe("PONG");
  });
});

describe("startRedisCluster with users", () => {
  it("turns the default user off on every node; replicas sync as admin, whose password stays off the command lines", async () => {
    const aclDir = tempDir("redis-cluster-acl");
    const adminPassword = randomBytes(16).toString("hex");
    const file = join(aclDir.path, "users.acl");
    writeFileSync(file, `user default off\nuser admin on #${sha256(adminPassword)} ~* &* +@all\n`, { mode: 0o600 });
    const secured = await startRedisCluster({
      dir: join(aclDir.path, "data"),
      logDir: join(aclDir.path, "logs"),
      acl: { file, adminPassword },
    });
    try {
      // Started only once every replica synced with its primary: as admin, the default user being off.
      const node = secured.nodes[0]!;
      expect(cli(node.port, "PING")).toMatch(/NOAUTH|WRONGPASS|NOPERM/);
      const asAdmin = execFileSync("redis-cli", ["--user", "admin", "-p", String(node.port), "PING"], {
        encoding: "utf8",
        env: { ...process.env, REDISCLI_AUTH: adminPassword },
      });
      expect(asAdmin.trim()).toBe("PONG");
      for (const { process } of secured.nodes) {
        const commandLine = readFileSync(`/proc/${process.pid}/cmdline`, "utf8");
        expect(commandLine).not.toContain(adminPassword);
      }
    } finally {
      await secured.stop();
      aclDir.remove();
    }
  }, 90_000);
});

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
