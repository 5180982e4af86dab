import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { findBinary } from "./findBinary.js";
import { freePort } from "./freePort.js";
import { logTail } from "./logTail.js";
import { type ManagedProcess, spawnManaged } from "./process.js";
import { isListening } from "./tcp.js";
import { waitFor } from "./waitFor.js";

const run = promisify(execFile);

export interface StartRedisClusterOptions {
  /** Primaries, each owning an equal share of the 16,384 slots; 3 by default (Cluster's minimum). */
  primaries?: number;
  /** Replicas of each primary; 1 by default. */
  replicasPerPrimary?: number;
  /** Node `n` (1-based) keeps its files in `<dir>/node-<n>`. */
  dir: string;
  /** Node `n` logs to `<logDir>/redis-<n>.log`. */
  logDir: string;
  /**
   * `cluster-node-timeout`: how long a primary may be unreachable before its replica is promoted.
   * 2 s by default, so fault tests see a failover within seconds.
   */
  nodeTimeoutMs?: number;
  /**
   * Users and their grants (`aclfile`, e.g. @platform/store redisAclFile) on every node, and the
   * `admin` user's password (the file's admin user), which the replicas replicate as and this
   * helper's redis-cli runs as. It reaches the nodes in a 0600 config file and redis-cli in its
   * environment (REDISCLI_AUTH), never on a command line.
   */
  acl?: { file: string; adminPassword: string };
  /** How long to wait for `cluster_state:ok` on every node; 60 s by default. */
  timeoutMs?: number;
}

export interface RedisClusterNode {
  /** 1-based, in start order. */
  index: number;
  port: number;
  /** The cluster bus port (node-to-node gossip and failover). */
  busPort: number;
  /** `redis://127.0.0.1:<port>`, without credentials. */
  url: string;
  logFile: string;
  process: ManagedProcess;
}

/** A node as the cluster sees it now (CLUSTER NODES). */
export interface RedisClusterMember {
  port: number;
  id: string;
  role: "primary" | "replica";
  /** The primary's id, for a replica. */
  primaryId?: string;
  /** Failed or suspected by the asking node (`fail`, `fail?`). */
  failing: boolean;
}

export interface RunningRedisCluster {
  nodes: RedisClusterNode[];
  /** `{ host, port }` of every node: ioredis' `Cluster` startup nodes. */
  startupNodes: { host: string; port: number }[];
  /** `host:port,host:port…`: REDIS_NODES as the services' configuration takes it. */
  nodeList: string;
  node(port: number): RedisClusterNode;
  /** The cluster's members as a live node sees them. */
  members(): Promise<RedisClusterMember[]>;
  /** The primary that serves `key`'s slot now (asked of the cluster, not computed). */
  primaryOf(key: string): Promise<RedisClusterNode>;
  /** SIGKILL (by default) to one node; resolves once it has exited. */
  kill(port: number, signal?: NodeJS.Signals): Promise<void>;
  /** SIGSTOP: the node stops answering without closing its sockets, like a network partition. */
  pause(port: number): void;
  /** SIGCONT after `pause`. */
  resume(port: number): void;
  /** Resolves once every running, unpaused node says `cluster_state:ok` and sees every slot served by one of them. */
  waitUntilOk(timeoutMs?: number): Promise<void>;
  /** Stops every node (resuming paused ones first, so SIGTERM can reach them). */
  stop(): Promise<void>;
}

/**
 * Starts a Redis Cluster on loopback from Debian's redis-server: `primaries × (1 + replicas)`
 * processes in cluster mode, each on a free client port and a free bus port, joined with
 * `redis-cli --cluster create` (slots spread evenly, replicas on other nodes than their primary),
 * and resolves once every node says `cluster_state:ok` and knows every other. No persistence: a
 * killed node comes back empty, as a replacement machine would.
 */
export async function startRedisCluster(options: StartRedisClusterOptions): Promise<RunningRedisCluster> {
  const primaries = options.primaries ?? 3;
  const replicas = options.replicasPerPrimary ?? 1;
  if (!Number.isInteger(primaries) || primaries < 3)
    throw new RangeError(`a Redis Cluster needs at least 3 primaries, got ${primaries}`);
  if (!Number.isInteger(replicas) || replicas < 0)
    throw new RangeError(`replicasPerPrimary must be a non-negative integer, got ${replicas}`);
  const count = primaries * (1 + replicas);
  const server = findBinary("redis-server", "REDIS_SERVER_BIN");
  const cli = findBinary("redis-cli", "REDIS_CLI_BIN");
  const cliEnv = { ...process.env, ...(options.acl ? { REDISCLI_AUTH: options.acl.adminPassword } : {}) };
  const cliUser = options.acl ? ["--user", "admin"] : [];
  const nodes: RedisClusterNode[] = [];
  const paused = new Set<number>();
  const ended = new Set<number>();

  const ask = async (port: number, ...args: string[]): Promise<string> =>
    (await run(cli, [...cliUser, "-h", "127.0.0.1", "-p", String(port), ...args], { env: cliEnv, timeout: 5_000 }))
      .stdout;

  const stopAll = async () => {
    for (const port of paused) nodes.find((node) => node.port === port)?.process.kill("SIGCONT");
    paused.clear();
    await Promise.all(nodes.map((node) => node.process.stop(5_000)));
  };

  try {
    nodes.push(...(await startNodes(options, count, server, (port) => ended.add(port))));
    await run(
      cli,
      [
        ...cliUser,
        "--cluster",
        "create",
        ...nodes.map((node) => `127.0.0.1:${node.port}`),
        "--cluster-replicas",
        String(replicas),
        "--cluster-yes",
      ],
      { env: cliEnv, timeout: 30_000 },
    ).catch((error: unknown) => {
      const output = error as { stdout?: string; stderr?: string };
      throw new Error(
        `redis-cli --cluster create failed: ${output.stderr ?? ""}${output.stdout ?? ""}\n${logTail(nodes[0]!.logFile)}`,
        { cause: error },
      );
    });
  } catch (error) {
    await stopAll();
    throw error;
  }

  const byPort = (port: number): RedisClusterNode => {
    const node = nodes.find((candidate) => candidate.port === port);
    if (node === undefined) throw new Error(`no node of this cluster listens on ${port}`);
    return node;
  };
  const live = () => nodes.filter((node) => !paused.has(node.port) && !ended.has(node.port));

  /**
   * Every running, unpaused node says `cluster_state:ok`, and sees every slot served by a primary
   * that is such a node (right after a kill the others still say ok until they notice), and at
   * least `replicaCount` replicas; every replica among them has synced with its primary.
   */
  const waitUntilOk = async (timeoutMs = options.timeoutMs ?? 60_000, replicaCount = 0) => {
    await waitFor(() => settled(ask, new Set(live().map((node) => node.port)), replicaCount), {
      what: "cluster_state:ok on every node",
      timeoutMs,
      intervalMs: 200,
    }).catch(async (error: unknown) => {
      const states = await Promise.all(
        live().map(
          async (node) => `${node.port}: ${(await ask(node.port, "CLUSTER", "INFO").catch(String)).split("\n")[0]}`,
        ),
      );
      throw new Error(`${(error as Error).message}\n${states.join("\n")}\n${logTail(nodes[0]!.logFile)}`, {
        cause: error,
      });
    });
  };

  const members = async (): Promise<RedisClusterMember[]> => {
    const asked = live()[0];
    if (asked === undefined) throw new Error("no node of the cluster is running");
    return parseClusterNodes(await ask(asked.port, "CLUSTER", "NODES"));
  };

  try {
    await waitUntilOk(undefined, primaries * replicas);
  } catch (error) {
    await stopAll();
    throw error;
  }

  return {
    nodes,
    startupNodes: nodes.map((node) => ({ host: "127.0.0.1", port: node.port })),
    nodeList: nodes.map((node) => `127.0.0.1:${node.port}`).join(","),
    node: byPort,
    members,
    async primaryOf(key) {
      const asked = live()[0];
      if (asked === undefined) throw new Error("no node of the cluster is running");
      const slot = Number((await ask(asked.port, "CLUSTER", "KEYSLOT", key)).trim());
      const port = primaryServing(slot, await ask(asked.port, "CLUSTER", "NODES"));
      if (port === undefined) throw new Error(`no primary serves slot ${slot} (of ${key}) now`);
      return byPort(port);
    },
    async kill(port, signal = "SIGKILL") {
      const node = byPort(port);
      node.process.kill(signal);
      await node.process.exited;
    },
    pause(port) {
      byPort(port).process.kill("SIGSTOP");
      paused.add(port);
    },
    resume(port) {
      byPort(port).process.kill("SIGCONT");
      paused.delete(port);
    },
    waitUntilOk,
    stop: stopAll,
  };
}

/** `127.0.0.1:7000@17000` → 7000. */
function portOf(address: string): number {
  return Number(address.split("@")[0]!.split(":").at(-1));
}

/** CLUSTER NODES: `<id> <ip:port@bus> <flags> <primary id or -> <ping> <pong> <epoch> <link> <slots…>`. */
export function parseClusterNodes(text: string): RedisClusterMember[] {
  return text
    .trim()
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [id, address, flags, primaryId] = line.split(" ");
      const replica = flags!.includes("slave");
      return {
        port: portOf(address!),
        id: id!,
        role: replica ? "replica" : "primary",
        ...(replica && primaryId !== "-" ? { primaryId: primaryId! } : {}),
        failing: /(^|,)fail\??(,|$)/.test(flags!),
      };
    });
}

/** redis.conf of one node. */
function nodeConfig(node: {
  port: number;
  busPort: number;
  dir: string;
  nodeTimeoutMs?: number | undefined;
  acl?: { file: string; adminPassword: string } | undefined;
}): string {
  return [
    "bind 127.0.0.1",
    `port ${node.port}`,
    `dir ${node.dir}`,
    'save ""',
    "appendonly no",
    "daemonize no",
    "protected-mode yes",
    // Replicas sync at once (the default waits 5 s to batch them): a replica that never synced is
    // never promoted, and fault tests kill primaries early.
    "repl-diskless-sync-delay 0",
    "cluster-enabled yes",
    "cluster-config-file nodes.conf",
    `cluster-node-timeout ${node.nodeTimeoutMs ?? 2_000}`,
    `cluster-port ${node.busPort}`,
    ...(node.acl ? [`aclfile ${node.acl.file}`, "masteruser admin", `masterauth ${node.acl.adminPassword}`] : []),
    "",
  ].join("\n");
}

/**
 * Whether every node in `reachable` says `cluster_state:ok`, sees every slot served by a primary
 * among `reachable` (right after a kill the others still say ok until they notice) and at least
 * `replicaCount` replicas (also in CLUSTER SLOTS), and, if it is a replica, has synced with its primary.
 */
async function settled(
  ask: (port: number, ...args: string[]) => Promise<string>,
  reachable: ReadonlySet<number>,
  replicaCount: number,
): Promise<boolean> {
  for (const port of reachable) {
    const info = await ask(port, "CLUSTER", "INFO");
    if (!info.includes("cluster_state:ok") || !info.includes("cluster_slots_assigned:16384")) return false;
    let served = 0;
    let rangeCount = 0;
    let replicasSeen = 0;
    for (const line of (await ask(port, "CLUSTER", "NODES")).trim().split("\n")) {
      const member = parseClusterNodes(line)[0]!;
      if (member.role === "replica" && !member.failing) replicasSeen++;
      const ranges = line
        .split(" ")
        .slice(8)
        .filter((range) => /^\d/.test(range));
      if (ranges.length === 0) continue;
      if (member.role !== "primary" || member.failing || !reachable.has(member.port)) return false;
      for (const range of ranges) {
        const [from, to = from] = range.split("-").map(Number);
        served += to! - from! + 1;
        rangeCount++;
      }
    }
    if (served !== 16_384 || replicasSeen < replicaCount) return false;
    // CLUSTER SLOTS, where clients learn the replicas (REDIS_READ_FROM=replicas), lists a replica
    // only once the cluster bus has carried its replication offset: one address line per node.
    const listed = (await ask(port, "CLUSTER", "SLOTS")).match(/^127\.0\.0\.1$/gm)?.length ?? 0;
    if (listed < rangeCount + replicaCount) return false;
    // A replica that has not synced yet would refuse to be promoted.
    const replication = await ask(port, "INFO", "replication");
    if (replication.includes("role:slave") && !replication.includes("master_link_status:up")) return false;
  }
  return true;
}

/** Starts `count` cluster-mode nodes on free ports; resolves once each listens. */
async function startNodes(
  options: StartRedisClusterOptions,
  count: number,
  server: string,
  onExit: (port: number) => void,
): Promise<RedisClusterNode[]> {
  const nodes: RedisClusterNode[] = [];
  for (let index = 1; index <= count; index++) {
    const port = await freePort();
    const busPort = await freePort();
    const dir = join(options.dir, `node-${index}`);
    const logFile = join(options.logDir, `redis-${index}.log`);
    mkdirSync(dir, { recursive: true });
    // Settings in a file of the node's own: the replication password must not show in `ps`.
    const configFile = join(dir, "redis.conf");
    writeFileSync(configFile, nodeConfig({ ...options, port, busPort, dir }), { mode: 0o600 });
    const child = spawnManaged({ name: `redis-${index}`, command: server, args: [configFile], logFile });
    void child.exited.then(() => onExit(port));
    nodes.push({ index, port, busPort, url: `redis://127.0.0.1:${port}`, logFile, process: child });
  }
  for (const node of nodes) {
    const died = new AbortController();
    void node.process.exited.then(() =>
      died.abort(
        new Error(`redis-${node.index} exited before listening; see ${node.logFile}:\n${logTail(node.logFile)}`),
      ),
    );
    await waitFor(() => isListening(node.port), {
      what: `redis-${node.index} on port ${node.port}`,
      timeoutMs: 15_000,
      intervalMs: 50,
      signal: died.signal,
    });
  }
  return nodes;
}

/** The port of the primary that serves `slot` in a CLUSTER NODES answer, unless it is failing. */
function primaryServing(slot: number, clusterNodes: string): number | undefined {
  for (const line of clusterNodes.trim().split("\n")) {
    const fields = line.split(" ");
    if (!fields[2]?.includes("master") || fields[2].includes("fail")) continue;
    for (const range of fields.slice(8)) {
      const [from, to = from] = range.split("-").map(Number);
      if (from !== undefined && to !== undefined && slot >= from && slot <= to) return portOf(fields[1]!);
    }
  }
  return undefined;
}
