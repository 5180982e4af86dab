import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { freePort } from "./freePort.js";
import {
  classDataSharing,
  ensureKafkaJars,
  formatStorage,
  javaBinary,
  jvmOptions,
  type KafkaNodeRole,
  type KafkaSasl,
  type RunningKafka,
  randomClusterId,
  serverProperties,
  stopGracefully,
  waitUntilServing,
  writeServerProperties,
} from "./kafka.js";
import { createScramUsers } from "./kafkaScramUsers.js";
import { type ManagedProcess, spawnManaged } from "./process.js";

export interface StartKafkaClusterOptions {
  /** How many nodes, each a combined broker + controller and a voter of the quorum; 3 by default. */
  brokers?: number;
  /** Client ports by node (node 1 first); free ones when omitted. */
  ports?: number[];
  /** Controller ports by node; free ones when omitted. Pass the same ones again to restart. */
  controllerPorts?: number[];
  /** Node `n` keeps its state in `<dataDir>/node-<n>`; reused on restart. */
  dataDir: string;
  /** Node `n` logs to `<logDir>/kafka-<n>.log`. */
  logDir: string;
  /** `min.insync.replicas` of the internal topics and the broker default; node count − 1 (at least 1) by default. */
  minInsyncReplicas?: number;
  /** Detached nodes outlive their parent (the local stack); tests keep theirs attached. */
  detached?: boolean;
  /** How long to wait for every node to be registered; 120 s by default. */
  timeoutMs?: number;
  /** Credentials and ACLs, as for `startKafka`: the same users on every node. */
  sasl?: KafkaSasl;
}

export interface KafkaClusterNode {
  nodeId: number;
  port: number;
  controllerPort: number;
  dataDir: string;
  logFile: string;
  /** The running process; replaced by `restart`. */
  process: ManagedProcess;
}

export interface RunningKafkaCluster {
  /** Bootstrap servers for kafkajs, every node's client port. */
  brokers: string[];
  sasl?: RunningKafka["sasl"];
  replicationFactor: number;
  minInsyncReplicas: number;
  nodes: KafkaClusterNode[];
  node(nodeId: number): KafkaClusterNode;
  /** Sends `signal` (SIGKILL by default) to one node and resolves once it has exited. */
  kill(nodeId: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a node again on its ports and data (stopping it first if it runs); resolves once every node is registered. */
  restart(nodeId: number): Promise<void>;
  /** Stops every node. */
  stop(): Promise<void>;
}

/**
 * Starts a KRaft cluster on loopback: `brokers` processes, each a combined broker + controller,
 * all voters of one static quorum, formatted with one cluster id. Topics default to one replica
 * per node and `min.insync.replicas` one less, the internal topics (offsets, transactions) too,
 * so the cluster keeps taking writes and commits with one node down. Resolves once a client sees
 * every broker registered. Starting again on the same ports and dataDir resumes the cluster.
 */
export async function startKafkaCluster(options: StartKafkaClusterOptions): Promise<RunningKafkaCluster> {
  const count = options.brokers ?? 3;
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`brokers must be a positive integer, got ${count}`);
  const minInsyncReplicas = options.minInsyncReplicas ?? Math.max(1, count - 1);
  const libs = await ensureKafkaJars();
  const classpath = join(libs, "*");
  const ports = await pickPorts(count, options.ports, options.controllerPorts);
  const quorumVoters = ports.map(({ controllerPort }, index) => `${index + 1}@127.0.0.1:${controllerPort}`).join(",");
  const clusterId = existingClusterId(options.dataDir, count) ?? randomClusterId();
  const brokers = ports.map(({ port }) => `127.0.0.1:${port}`);
  const sasl = options.sasl && { mechanism: "scram-sha-512" as const, ...options.sasl.admin };

  const launchers = ports.map(({ port, controllerPort }, index) => {
    const role: KafkaNodeRole = { nodeId: index + 1, quorumVoters, replicationFactor: count, minInsyncReplicas };
    return nodeLauncher({ ...options, classpath, clusterId, port, controllerPort, role });
  });

  const nodes: KafkaClusterNode[] = [];
  const stops = new Map<number, () => Promise<void>>();
  const launch = async (index: number) => {
    const launcher = launchers[index] as NodeLauncher;
    const started = await launcher.start();
    nodes[index] = started.node;
    stops.set(started.node.nodeId, started.stop);
  };
  const stop = async () => {
    await Promise.all([...stops.values()].map((stopNode) => stopNode()));
  };
  const waitForAll = () =>
    waitUntilServing({
      brokers,
      // A copy: kafkajs writes its authenticator into the object it is given.
      sasl: sasl && { ...sasl },
      nodes,
      brokerCount: count,
      timeoutMs: options.timeoutMs ?? 120_000,
    });

  try {
    // Formatting and JVM starts in parallel: a voter waits for the others anyway. All settle
    // before a failure is thrown, so no node starts after the cleanup below.
    const launched = await Promise.allSettled(launchers.map((_, index) => launch(index)));
    const failed = launched.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    if (failed) throw failed.reason;
    if (options.sasl)
      await createScramUsers({
        java: javaBinary(),
        classpath,
        brokers: brokers.join(","),
        admin: options.sasl.admin,
        users: [options.sasl.admin, ...(options.sasl.users ?? [])],
        logFile: join(options.logDir, "kafka-users.log"),
      });
    await waitForAll();
  } catch (error) {
    await stop();
    throw error;
  }

  const node = (nodeId: number): KafkaClusterNode => {
    const found = nodes.find((candidate) => candidate.nodeId === nodeId);
    if (found === undefined) throw new RangeError(`no kafka node ${nodeId} (1..${count})`);
    return found;
  };
  return {
    brokers,
    ...(sasl ? { sasl } : {}),
    replicationFactor: count,
    minInsyncReplicas,
    nodes,
    node,
    async kill(nodeId, signal = "SIGKILL") {
      const target = node(nodeId).process;
      target.kill(signal);
      await target.exited;
    },
    async restart(nodeId) {
      node(nodeId);
      await stops.get(nodeId)?.();
      await launch(nodeId - 1);
      await waitForAll();
    },
    stop,
  };
}

interface NodeLauncher {
  start(): Promise<{ node: KafkaClusterNode; stop: () => Promise<void> }>;
}

function nodeLauncher(options: {
  classpath: string;
  clusterId: string;
  port: number;
  controllerPort: number;
  role: KafkaNodeRole;
  dataDir: string;
  logDir: string;
  detached?: boolean | undefined;
  sasl?: KafkaSasl | undefined;
}): NodeLauncher {
  const { nodeId } = options.role;
  const dataDir = join(options.dataDir, `node-${nodeId}`);
  const logDir = join(dataDir, "kraft");
  const logFile = join(options.logDir, `kafka-${nodeId}.log`);
  const propertiesFile = join(dataDir, "server.properties");
  const { port, controllerPort } = options;
  return {
    async start() {
      mkdirSync(logDir, { recursive: true });
      mkdirSync(dirname(logFile), { recursive: true });
      writeServerProperties(
        propertiesFile,
        serverProperties({ port, controllerPort, logDir, sasl: options.sasl, node: options.role }),
      );
      const cds = classDataSharing(dirname(dirname(options.classpath)), options.detached ?? false);
      if (!existsSync(join(logDir, "meta.properties"))) {
        await formatStorage({
          classpath: options.classpath,
          propertiesFile,
          logFile,
          jvmOptions: cds.readOnlyOptions,
          clusterId: options.clusterId,
        });
      }
      const broker = spawnManaged({
        name: `kafka-${nodeId}`,
        command: javaBinary(),
        args: [...jvmOptions("512m"), ...cds.jvmOptions, "-cp", options.classpath, "kafka.Kafka", propertiesFile],
        logFile,
        detached: options.detached,
      });
      const stop = async () => {
        const exit = await stopGracefully(broker, 30_000);
        // A JVM killed by a signal may have left a half-written archive.
        cds.afterExit(typeof exit === "number");
      };
      return { node: { nodeId, port, controllerPort, dataDir, logFile, process: broker }, stop };
    },
  };
}

async function pickPorts(
  count: number,
  ports: number[] | undefined,
  controllerPorts: number[] | undefined,
): Promise<{ port: number; controllerPort: number }[]> {
  const taken = new Set<number>();
  const pick = async (given: number | undefined) => {
    let chosen = given ?? (await freePort());
    while (given === undefined && taken.has(chosen)) chosen = await freePort();
    taken.add(chosen);
    return chosen;
  };
  const picked: { port: number; controllerPort: number }[] = [];
  for (let index = 0; index < count; index++) {
    const port = await pick(ports?.[index]);
    const controllerPort = await pick(controllerPorts?.[index]);
    picked.push({ port, controllerPort });
  }
  return picked;
}

/** The id a node was formatted with, so a node formatted later (or again) joins the same cluster. */
function existingClusterId(dataDir: string, count: number): string | undefined {
  for (let nodeId = 1; nodeId <= count; nodeId++) {
    const meta = join(dataDir, `node-${nodeId}`, "kraft", "meta.properties");
    if (!existsSync(meta)) continue;
    const id = /^cluster\.id=(.+)$/m.exec(readFileSync(meta, "utf8"))?.[1]?.trim();
    if (id) return id;
  }
  return undefined;
}
