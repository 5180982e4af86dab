import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type ChainConfig, loadChainConfig } from "@platform/chain";
import {
  DEPLOYMENT_FILE_NAME,
  deploymentDataOf,
  loadTokenCatalog,
  renderJson,
  tokenCatalogFile,
} from "@platform/deployment-data";
import { type DevnetAccounts, deployDevnet } from "@platform/devnet";
import { connectHistory, migrateHistory, provisionHistory } from "@platform/history";
import {
  type ManagedProcess,
  type RunningKafkaCluster,
  type RunningRedisCluster,
  spawnManaged,
  startAnvil,
  startKafka,
  startKafkaCluster,
  startNats,
  startPostgres,
  startRedis,
  startRedisCluster,
} from "@platform/testing";
import type { ChainDescriptor, ProcessDescriptor, StackDescriptor } from "./descriptor.js";
import { writeDescriptor } from "./descriptor.js";
import {
  brokerSasl,
  grantServiceAcls,
  makeKafkaCredentials,
  type StackKafkaCredentials,
  writeKafkaPasswordFiles,
} from "./kafkaCredentials.js";
import { type NativeNetwork, startNativeNetwork } from "./nativeNetwork.js";
import { localChainsTemplate, repoRoot } from "./paths.js";
import type { PortPlan } from "./ports.js";
import type { Progress } from "./progress.js";
import { type ObservabilityOptions, startPrometheus } from "./prometheus.js";
import { prepareSecrets, seedDemoKey } from "./secrets.js";
import {
  type PostgresUsers,
  type ServerUsers,
  withCredentials,
  writeNatsUsers,
  writePgpass,
  writePostgresUsers,
  writeRedisUsers,
} from "./serverUsers.js";
import {
  SERVICE_ORDER,
  type ServiceName,
  type ServiceProcessSpec,
  type ServiceRuntime,
  serviceCommand,
  serviceProcessSpecs,
} from "./serviceProcesses.js";
import { simulatorCommand, simulatorProcessSpec, writeSimulatorKeys } from "./simulatorProcess.js";
import { createStackTopics } from "./topicsStep.js";
import { waitReady } from "./waitReady.js";

export interface ExternalInfrastructure {
  kafkaBrokers?: string[];
  redisUrl?: string;
  natsUrl?: string;
  /**
   * A superuser's URL of a PostgreSQL (credentials included): no server is started, and the stack
   * provisions the history roles and the `platform` database there (setting those roles' passwords
   * to new ones, as on its own server) and migrates the schema, so each service keeps its own role.
   */
  postgresUrl?: string;
  /** A chains file with RPC URLs and deployed contract addresses: no anvil is started, nothing is deployed. */
  chainsFile?: string;
}

export interface StartStackOptions {
  stateDir: string;
  ports: PortPlan;
  /** Detached processes outlive the caller (the CLI); a test keeps them attached. */
  detached: boolean;
  runtime: ServiceRuntime;
  external?: ExternalInfrastructure;
  /** Services to start; all of them when omitted. */
  services?: ServiceName[];
  logLevel?: string;
  progress: Progress;
  readyTimeoutMs?: number;
  /**
   * Start the devnet simulator (filler, oracle, demo users, network activity) once the services are
   * up. By default it runs with the whole stack and not when `services` picks a subset. Tests that
   * play user, filler and oracle themselves turn it off. Never started on external chains: the
   * launcher has no keys for them.
   */
  simulator?: boolean;
  /** The chains template to deploy the devnet from; deploy/config/local/chains.json by default. */
  chainsTemplate?: string;
  /**
   * Start the native network (the real Subtensor runtime under chopsticks) and seed it; never on
   * external chains. Every network read model of the Data API (accounts, pools, emissions, subnets,
   * validators, holders, totals) comes from it, through the chain-ingestor's native source. The CLI
   * turns it on; tests that read no network data leave it off (it adds a node start and a seed,
   * about 15 s).
   */
  nativeNetwork?: boolean;
  /**
   * The native network's block time; 2,000 ms by default. 0: no block timer, the caller builds
   * blocks itself (`dev_newBlock` on the node), as tests that reorganise the chain must.
   */
  nativeBlockTimeMs?: number;
  /**
   * Nodes of the stack's own Kafka: 1 (the default), or a KRaft cluster of that many combined
   * broker + controller nodes (3 for the fault tests), whose topics then get one replica per node
   * and `min.insync.replicas` one less (`KAFKA_REPLICATION_FACTOR` of the services). Node 1 takes
   * `ports.kafka` and `ports.kafkaController`, the others free ports.
   */
  kafkaNodes?: number;
  /**
   * `retention.ms` of the chain topics (CHAIN_TOPICS_RETENTION_MS of the projector and the
   * chain-ingestor; `STACK_CHAIN_TOPICS_RETENTION_MS` in the CLI): 7 days when omitted.
   */
  chainTopicsRetentionMs?: number;
  /**
   * Put the read models on a Redis Cluster of the stack's own (3 primaries, a replica each, the
   * same ACL users) beside the standalone Redis: data-query (reading from replicas), intents-gateway,
   * the projector (waiting for one replica per commit) and tc use the cluster; auth and the gateway
   * (which reads auth's key records) stay on the standalone server, as auth is not cluster-ready
   * (docs/deployment.md). For the Redis fault tests; off by default.
   */
  redisCluster?: boolean;
  /**
   * PostgreSQL's durability (fsync, synchronous commit, full-page writes). By default on for a
   * detached stack (the CLI's, which outlives its caller and keeps the defaults of a real server)
   * and off for the attached stacks of tests and benches: a crash of the machine may then lose the
   * cluster, which the next start wipes anyway.
   */
  postgresDurable?: boolean;
  /** Extra environment of some services, over the stack's own (e.g. a short token lifetime for a test). */
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Extra environment of the simulator, over the stack's own (e.g. `SIM_PRICE_INTERVAL_MS` for a bench). */
  simulatorEnv?: Record<string, string>;
  /**
   * Start Prometheus (Debian's binary) on `ports.prometheus`, scraping every service's ops port with
   * the platform's alert rules loaded (`STACK_OBSERVABILITY=1` in the CLI); off when omitted.
   */
  observability?: ObservabilityOptions;
}

export interface RunningStack {
  descriptor: StackDescriptor;
  /** Handles of the processes this call started, by name (for tests that kill one); `restart` replaces them. */
  processes: Map<string, ManagedProcess>;
  /** The stack's Kafka cluster, when `kafkaNodes` asked for more than one node (its nodes are `kafka-<n>` in `processes`). */
  kafkaCluster?: RunningKafkaCluster;
  /** The read models' Redis Cluster, when `redisCluster` asked for one (its nodes are `redis-cluster-<n>` in `processes`). */
  redisCluster?: RunningRedisCluster;
  /**
   * The devnet's accounts with their keys (in memory only), when this call deployed the devnet: tests
   * act as the filler or the oracle with them.
   */
  devnetAccounts?: DevnetAccounts;
  /**
   * Starts one service (or the simulator) again with the environment it was started with, after
   * stopping it if it still runs (a test may have killed it), and waits until it is ready.
   */
  restart(name: string): Promise<void>;
  /** Stops every started process, services first, then infrastructure. */
  stop(): Promise<void>;
}

interface StartedProcess {
  descriptor: ProcessDescriptor;
  handle: ManagedProcess;
  stop: () => Promise<void>;
  /** Services and the simulator: how to start it again, and where it says it is ready. */
  relaunch?: { spawn: () => ManagedProcess; readyUrl: string };
}

/**
 * Brings the whole stack up on loopback: infrastructure in parallel (Kafka, Redis, NATS, one anvil
 * per configured chain), the devnet contracts, then every service, each waited on until ready.
 * Data from an earlier run is wiped first: the chains restart empty, so Kafka and Redis must too.
 */
export async function startStack(options: StartStackOptions): Promise<RunningStack> {
  const { stateDir, ports, progress } = options;
  const logs = join(stateDir, "logs");
  const data = join(stateDir, "data");
  rmSync(data, { recursive: true, force: true });
  mkdirSync(logs, { recursive: true });
  mkdirSync(data, { recursive: true });

  const { started, partial, track, stopAll } = trackStartedProcesses(stateDir, ports);
  const launch = launcher(options);

  try {
    const external = options.external ?? {};
    progress.step("starting infrastructure (Kafka, Redis, PostgreSQL, NATS, chains) and making the stack's secrets");
    const secretsDir = join(stateDir, "secrets");
    // A Kafka of the stack's own runs with credentials and ACLs; an external one as it is.
    const kafkaCredentials = external.kafkaBrokers ? undefined : makeKafkaCredentials();
    const { kafka, redisUrl, redisCluster, postgresUrl, natsUrl, admin, deployed, nativeNetwork } =
      await startInfrastructure(options, external, { logs, data, secretsDir }, track, kafkaCredentials);
    // Before the services' specs: serviceProcessSpecs gives a service its Kafka user when its password file is there.
    if (kafkaCredentials) writeKafkaPasswordFiles(secretsDir, kafkaCredentials);
    const { chains, accounts } = deployed;

    const chainsFile = external.chainsFile ?? join(stateDir, "chains.json");
    let deploymentDataUrl: string | undefined;
    if (deployed.config !== undefined) {
      const config =
        nativeNetwork === undefined ? deployed.config : { ...deployed.config, substrate: nativeNetwork.network };
      writeFileSync(chainsFile, `${JSON.stringify(config, null, 2)}\n`);
      deploymentDataUrl = await writeDeploymentData(stateDir, deployed.config);
    }
    const { brokers: kafkaBrokers } = kafka;
    await runTopicsStep(options, kafka, kafkaCredentials);
    const infra = {
      kafkaBrokers,
      kafkaTopicsStep: true,
      redisUrl,
      ...(redisCluster === undefined ? {} : { redisClusterNodes: redisCluster.nodeList }),
      natsUrl,
      postgresUrl,
      chainsFile,
      secretsDir,
    };
    const wanted = new Set(options.services ?? SERVICE_ORDER);
    const specs = serviceProcessSpecs(ports, infra, options.logLevel ?? "info")
      .filter((spec) => wanted.has(spec.name))
      .map((spec) => ({
        ...spec,
        env: {
          ...spec.env,
          ...blockTimeEnv(spec.name, options),
          ...(spec.name === "intents-gateway" && deploymentDataUrl ? { DEPLOYMENT_DATA_URL: deploymentDataUrl } : {}),
          ...options.serviceEnv?.[spec.name],
        },
      }));
    const context: LaunchContext = { options, logs, launch, track };

    await startServices(context, specs);

    if ((options.simulator ?? options.services === undefined) && accounts !== undefined) {
      // After the services: what the simulator does on chain is then mirrored from its first block.
      await startSimulator(context, chainsFile, secretsDir, accounts);
    }

    const prometheusUrl =
      options.observability === undefined ? undefined : await startStackPrometheus(context, specs, data);

    const authSpec = specs.find((spec) => spec.name === "auth");
    const demoApiKey = authSpec?.adminGrpcTarget
      ? await seedDemoKey(options.runtime, authSpec.adminGrpcTarget)
      : undefined;
    if (demoApiKey) progress.done(`demo API key ${demoApiKey.id} created`);

    const descriptor: StackDescriptor = {
      ...partial,
      ...(demoApiKey ? { demoApiKey } : {}),
      ...(prometheusUrl === undefined ? {} : { prometheusUrl }),
      chains,
      ...(nativeNetwork === undefined ? {} : { substrate: nativeNetwork.descriptor }),
      infrastructure: {
        kafkaBrokers,
        redisUrl,
        ...(redisCluster === undefined ? {} : { redisClusterNodes: redisCluster.nodeList }),
        natsUrl,
        postgresUrl,
        ...admin,
      },
      ...(kafkaCredentials ? { kafkaAdmin: kafkaCredentials.admin } : {}),
      processes: started.map((entry) => entry.descriptor),
    };
    writeDescriptor(stateDir, descriptor);
    const processes = new Map(started.map((entry) => [entry.descriptor.name, entry.handle]));
    const restart = (name: string) => restartProcess({ options, started, processes, descriptor }, name);
    return {
      descriptor,
      processes,
      ...(kafka.cluster ? { kafkaCluster: kafka.cluster } : {}),
      ...(redisCluster ? { redisCluster } : {}),
      ...(accounts ? { devnetAccounts: accounts } : {}),
      restart,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

type Track = (name: string, handle: ManagedProcess, logFile: string, stop: () => Promise<void>) => void;

/** `Track` for services and the simulator: what the descriptor shows of them, and how to start them again. */
type TrackStarted = (
  name: string,
  handle: ManagedProcess,
  logFile: string,
  stop: () => Promise<void>,
  extra?: Partial<ProcessDescriptor>,
  relaunch?: StartedProcess["relaunch"],
) => void;

interface ProcessTracking {
  started: StartedProcess[];
  partial: StackDescriptor;
  track: TrackStarted;
  /** Stops every started process: the services and the simulator at once, then the servers at once. */
  stopAll: () => Promise<void>;
}

/** The processes `startStack` has started so far, and the descriptor that records them. */
function trackStartedProcesses(stateDir: string, ports: PortPlan): ProcessTracking {
  const started: StartedProcess[] = [];
  const stopAll = async () => {
    // What uses the servers first, so that none of it meets a server gone; each wave in parallel,
    // as one after the other costs a test file's teardown tens of seconds on a loaded machine.
    const users = started.filter((entry) => entry.relaunch !== undefined);
    const servers = started.filter((entry) => entry.relaunch === undefined);
    for (const wave of [users, servers]) await Promise.all(wave.map((entry) => entry.stop().catch(() => undefined)));
  };
  // The descriptor is rewritten as each process starts, so `stop` can end a half-started stack
  // even when the launcher itself was killed before it finished.
  const partial: StackDescriptor = {
    startedAt: new Date().toISOString(),
    gatewayUrl: `http://127.0.0.1:${ports.gateway}`,
    chains: [],
    infrastructure: { kafkaBrokers: [], redisUrl: "", natsUrl: "" },
    processes: [],
    stateDir,
  };
  const track = (
    name: string,
    handle: ManagedProcess,
    logFile: string,
    stop: () => Promise<void>,
    extra: Partial<ProcessDescriptor> = {},
    relaunch?: StartedProcess["relaunch"],
  ) => {
    started.push({
      descriptor: { name, pid: handle.pid, logFile, ...extra },
      handle,
      stop,
      ...(relaunch ? { relaunch } : {}),
    });
    partial.processes = started.map((entry) => entry.descriptor);
    writeDescriptor(stateDir, partial);
  };
  return { started, partial, track, stopAll };
}

type Launch = (
  name: string,
  command: { command: string; args: string[] },
  env: Record<string, string>,
  logFile: string,
) => () => ManagedProcess;

/** How a service or the simulator is spawned, from the repo root; `restart` spawns it again the same way. */
function launcher(options: StartStackOptions): Launch {
  return (name, command, env, logFile) => () =>
    spawnManaged({
      name,
      ...command,
      logFile,
      cwd: repoRoot,
      detached: options.detached,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", ...env },
    });
}

interface StackDirs {
  logs: string;
  data: string;
  secretsDir: string;
}

/**
 * Kafka, Redis, PostgreSQL, NATS, the chains, the stack's secrets and, when asked for, the native
 * network, all in parallel; what `external` names is used as it is instead (an external PostgreSQL
 * is provisioned and migrated like the stack's own).
 */
async function startInfrastructure(
  options: StartStackOptions,
  external: ExternalInfrastructure,
  dirs: StackDirs,
  track: Track,
  kafkaCredentials?: StackKafkaCredentials,
) {
  const { ports, progress } = options;
  const { logs, data, secretsDir } = dirs;
  // Fresh for every start, before the servers that read their users from it (prepareSecrets adds auth's).
  rmSync(secretsDir, { recursive: true, force: true });
  const redisUsers = external.redisUrl === undefined ? writeRedisUsers(secretsDir) : undefined;
  const natsUsers = external.natsUrl === undefined ? writeNatsUsers(secretsDir) : undefined;
  const postgresUsers = writePostgresUsers(secretsDir, external.postgresUrl === undefined);
  const withNative = !external.chainsFile && options.nativeNetwork === true;
  const native: Promise<NativeNetwork | undefined> = withNative
    ? startNativeNetwork({
        port: ports.subtensorNode,
        blockTimeMs: options.nativeBlockTimeMs ?? 2_000,
        logs,
        detached: options.detached,
        track,
      }).then((started) => {
        progress.done(
          `subtensor runtime (spec ${started.descriptor.specVersion}) on ${started.descriptor.rpcUrl}, seeded`,
        );
        return started;
      })
    : Promise.resolve(undefined);
  const cluster: Promise<RunningRedisCluster | undefined> =
    options.redisCluster === true && external.redisUrl === undefined
      ? startStackRedisCluster(options, dirs, track, redisUsers)
      : Promise.resolve(undefined);
  const history: Promise<string> = external.postgresUrl
    ? prepareHistory(external.postgresUrl, secretsDir, postgresUsers).then((url) => {
        progress.done(`postgres (external) at ${url}: the history roles, database and schema`);
        return url;
      })
    : startStackPostgres(options, dirs, track, postgresUsers);
  const [kafka, redisUrl, natsUrl, deployed, , nativeNetwork, redisCluster, postgresUrl] = await Promise.all([
    external.kafkaBrokers
      ? Promise.resolve<StackKafka>({ brokers: external.kafkaBrokers, replicationFactor: 1 })
      : startStackKafka(options, logs, data, track, kafkaCredentials),
    external.redisUrl ??
      (async () => {
        const logFile = join(logs, "redis.log");
        const redis = await startRedis({
          port: ports.redis,
          dir: join(data, "redis"),
          logFile,
          appendOnly: true,
          ...(redisUsers === undefined ? {} : { aclFile: redisUsers.serverFile }),
          detached: options.detached,
        });
        track("redis", redis.process, logFile, () => redis.stop());
        progress.done(`redis on ${redis.url} (an ACL user per service)`);
        return redis.url;
      })(),
    external.natsUrl ??
      (async () => {
        const logFile = join(logs, "nats.log");
        const nats = await startNats({
          port: ports.nats,
          dir: join(data, "nats"),
          logFile,
          ...(natsUsers === undefined ? {} : { configFile: natsUsers.serverFile }),
          detached: options.detached,
        });
        track("nats", nats.process, logFile, () => nats.stop());
        progress.done(`nats (JetStream) on ${nats.url} (a user per service)`);
        return nats.url;
      })(),
    external.chainsFile ? describeExternalChains(external.chainsFile) : startDevnetChains(options, logs, track),
    prepareSecrets(secretsDir, options.runtime),
    native,
    cluster,
    history,
  ]);
  // Tests and tools act as the stack's admin; the descriptor that carries it is the owner's only.
  const admin = {
    ...(redisUsers === undefined
      ? {}
      : { redisAdminUrl: withCredentials(redisUrl, "admin", redisUsers.adminPassword) }),
    ...(natsUsers === undefined ? {} : { natsAdminUrl: withCredentials(natsUrl, "admin", natsUsers.adminPassword) }),
  };
  return { kafka, redisUrl, redisCluster, postgresUrl, natsUrl, admin, deployed, nativeNetwork };
}

/**
 * The stack's PostgreSQL (the history store) on `ports.postgres`, its cluster under the stack's data
 * folder, then its roles, database and schema; answers the history database's URL (no credentials).
 */
async function startStackPostgres(
  options: StartStackOptions,
  dirs: StackDirs,
  track: Track,
  users: PostgresUsers,
): Promise<string> {
  const startedAt = Date.now();
  const logFile = join(dirs.logs, "postgres.log");
  const durable = options.postgresDurable ?? options.detached;
  const postgres = await startPostgres({
    port: options.ports.postgres,
    dataDir: join(dirs.data, "postgres"),
    logFile,
    superuserPassword: users.superuserPassword!,
    durable,
    detached: options.detached,
  });
  track("postgres", postgres.process, logFile, () => postgres.stop());
  const url = await prepareHistory(postgres.url, dirs.secretsDir, users);
  options.progress.done(
    `postgres on ${url} (the history store${durable ? "" : ", fsync off"}; a role per service; ${Date.now() - startedAt} ms)`,
  );
  return url;
}

/**
 * The history store on a server whose superuser the stack has (`server`'s own credentials, or the
 * generated superuser password): the roles with their passwords and grants, the `platform`
 * database, the schema migrated as its owner (`history_owner`), as the Kubernetes Job does with the
 * projector's dist/migrate.js; and the PGPASSFILE for psql. Answers the database's URL without
 * credentials, which is what the services are given.
 */
async function prepareHistory(server: string, secretsDir: string, users: PostgresUsers): Promise<string> {
  const parsed = new URL(server);
  const superuserUrl =
    users.superuserPassword === undefined ? server : withCredentials(server, "postgres", users.superuserPassword);
  await provisionHistory({ superuserUrl, passwords: users.passwords });
  parsed.username = "";
  parsed.password = "";
  parsed.pathname = "/platform";
  const url = parsed.toString();
  const owner = connectHistory({
    url,
    username: "history_owner",
    password: users.passwords.history_owner,
    max: 1,
    applicationName: "local-stack-migrate",
  });
  try {
    await migrateHistory(owner);
  } finally {
    await owner.end({ timeout: 5 });
  }
  writePgpass(secretsDir, users, url);
  return url;
}

/** The read models' Redis Cluster, with the standalone server's users (the same ACL file). */
async function startStackRedisCluster(
  options: StartStackOptions,
  dirs: StackDirs,
  track: Track,
  users: ServerUsers | undefined,
): Promise<RunningRedisCluster> {
  const cluster = await startRedisCluster({
    dir: join(dirs.data, "redis-cluster"),
    logDir: dirs.logs,
    ...(users === undefined ? {} : { acl: { file: users.serverFile, adminPassword: users.adminPassword } }),
  });
  // Each node's entry stops the whole cluster (resuming a paused node first, which SIGTERM alone
  // would not reach); later calls find them stopped.
  for (const node of cluster.nodes)
    track(`redis-cluster-${node.index}`, node.process, node.logFile, () => cluster.stop());
  options.progress.done(`redis cluster on ${cluster.nodeList} (3 primaries, a replica each; the read models)`);
  return cluster;
}

/** The topics step (topicsStep.ts): every topic created before the services, which only wait for theirs. */
async function runTopicsStep(
  options: StartStackOptions,
  kafka: StackKafka,
  credentials: StackKafkaCredentials | undefined,
): Promise<void> {
  options.progress.step("creating the kafka topics (the topics step, as the Job kafka-topics does)");
  const topics = await createStackTopics({
    brokers: kafka.brokers,
    ...(credentials === undefined ? {} : { credentials: credentials.services.topics }),
    replicationFactor: kafka.replicationFactor,
    ...(options.chainTopicsRetentionMs === undefined ? {} : { chainTopicsRetentionMs: options.chainTopicsRetentionMs }),
  });
  options.progress.done(`${topics.length} kafka topics in place`);
}

/** What the services are told about the stack's Kafka. */
interface StackKafka {
  brokers: string[];
  /** Every topic's replication factor: the node count (`KAFKA_REPLICATION_FACTOR`). */
  replicationFactor: number;
  cluster?: RunningKafkaCluster;
}

/** The stack's broker (or cluster), with every service's user and ACLs when it has credentials. */
async function startStackKafka(
  options: StartStackOptions,
  logs: string,
  data: string,
  track: Track,
  credentials: StackKafkaCredentials | undefined,
): Promise<StackKafka> {
  const kafka = await startStackKafkaNodes(options, logs, data, track, credentials);
  const nodes = kafka.cluster
    ? ` (${kafka.replicationFactor} nodes, replication factor ${kafka.replicationFactor})`
    : "";
  if (credentials) {
    const startedAt = Date.now();
    await grantServiceAcls(kafka.brokers, credentials);
    options.progress.done(
      `kafka on ${kafka.brokers.join(",")}${nodes}, SASL/SCRAM users and ACLs (${Date.now() - startedAt} ms)`,
    );
  } else {
    options.progress.done(`kafka on ${kafka.brokers.join(",")}${nodes}`);
  }
  return kafka;
}

async function startStackKafkaNodes(
  options: StartStackOptions,
  logs: string,
  data: string,
  track: Track,
  credentials: StackKafkaCredentials | undefined,
): Promise<StackKafka> {
  const sasl = credentials ? { sasl: brokerSasl(credentials) } : {};
  const nodes = options.kafkaNodes ?? 1;
  if (nodes === 1) {
    const logFile = join(logs, "kafka.log");
    const kafka = await startKafka({
      port: options.ports.kafka,
      controllerPort: options.ports.kafkaController,
      dataDir: join(data, "kafka"),
      logFile,
      detached: options.detached,
      ...sasl,
    });
    track("kafka", kafka.process, logFile, () => kafka.stop());
    return { brokers: kafka.brokers, replicationFactor: 1 };
  }
  const cluster = await startKafkaCluster({
    brokers: nodes,
    ports: [options.ports.kafka],
    controllerPorts: [options.ports.kafkaController],
    dataDir: join(data, "kafka"),
    logDir: logs,
    detached: options.detached,
    ...sasl,
  });
  // Each node's entry stops the whole cluster: its nodes stop together, since a node left alone
  // waits for a quorum that is gone before it shuts down. Later calls find them stopped.
  for (const node of cluster.nodes) track(`kafka-${node.nodeId}`, node.process, node.logFile, () => cluster.stop());
  return { brokers: cluster.brokers, replicationFactor: cluster.replicationFactor, cluster };
}

/** What starting a service or the simulator needs from `startStack`. */
interface LaunchContext {
  options: StartStackOptions;
  logs: string;
  launch: Launch;
  track: TrackStarted;
}

/** Spawns every chosen service, then waits until each one is ready. */
async function startServices(context: LaunchContext, specs: ServiceProcessSpec[]): Promise<void> {
  const { options, logs, launch, track } = context;
  const { progress } = options;
  progress.step(`starting services: ${specs.map((spec) => spec.name).join(", ")}`);
  const exits: Array<Promise<number | string>> = [];
  for (const spec of specs) {
    const logFile = join(logs, `${spec.name}.log`);
    const spawn = launch(spec.name, serviceCommand(repoRoot, spec.name, options.runtime), spec.env, logFile);
    const handle = spawn();
    exits.push(handle.exited);
    track(
      spec.name,
      handle,
      logFile,
      () => handle.stop(),
      {
        opsUrl: spec.readyUrl.replace(/\/readyz$/, ""),
        grpcTarget: spec.grpcTarget,
        ...(spec.adminGrpcTarget ? { adminGrpcTarget: spec.adminGrpcTarget } : {}),
      },
      { spawn, readyUrl: spec.readyUrl },
    );
  }
  // Every process becomes ready on its own; the stack is up once each one, gateway included, says so.
  await Promise.all(
    specs.map(async (spec, index) => {
      const logFile = join(logs, `${spec.name}.log`);
      await waitReady(spec.name, spec.readyUrl, logFile, options.readyTimeoutMs ?? 90_000, exits[index]);
      progress.done(`${spec.name} ready`);
    }),
  );
}

/** The devnet simulator with the devnet accounts' keys, waited on until ready. */
async function startSimulator(
  context: LaunchContext,
  chainsFile: string,
  secretsDir: string,
  accounts: DevnetAccounts,
): Promise<void> {
  const { options, logs, launch, track } = context;
  const stackSpec = simulatorProcessSpec(
    options.ports,
    chainsFile,
    writeSimulatorKeys(secretsDir, accounts),
    options.logLevel ?? "info",
  );
  const spec = { ...stackSpec, env: { ...stackSpec.env, ...options.simulatorEnv } };
  const logFile = join(logs, "simulator.log");
  const spawn = launch("simulator", simulatorCommand(repoRoot, options.runtime), spec.env, logFile);
  const handle = spawn();
  track(
    "simulator",
    handle,
    logFile,
    () => handle.stop(),
    { opsUrl: spec.readyUrl.replace(/\/readyz$/, "") },
    { spawn, readyUrl: spec.readyUrl },
  );
  await waitReady("simulator", spec.readyUrl, logFile, options.readyTimeoutMs ?? 90_000, handle.exited);
  options.progress.done("simulator ready (filler, oracle, demo users)");
}

/** Prometheus scraping the ops port of every service started (its `job` is the service's name). */
async function startStackPrometheus(
  context: LaunchContext,
  specs: ServiceProcessSpec[],
  data: string,
): Promise<string> {
  const { options, logs, track } = context;
  const logFile = join(logs, "prometheus.log");
  const prometheus = await startPrometheus({
    ...options.observability,
    port: options.ports.prometheus,
    targets: specs.map((spec) => ({ job: spec.name, address: new URL(spec.readyUrl).host })),
    dataDir: join(data, "prometheus"),
    logFile,
    detached: options.detached,
  });
  track("prometheus", prometheus.process, logFile, () => prometheus.stop());
  options.progress.done(`prometheus on ${prometheus.url} (rules ${prometheus.rulesFile})`);
  return prometheus.url;
}

interface RestartContext {
  options: StartStackOptions;
  started: StartedProcess[];
  processes: Map<string, ManagedProcess>;
  descriptor: StackDescriptor;
}

/** `RunningStack.restart`: one service or the simulator, spawned again and recorded under its new pid. */
async function restartProcess(stack: RestartContext, name: string): Promise<void> {
  const { options, started, processes, descriptor } = stack;
  const entry = started.find((candidate) => candidate.descriptor.name === name);
  if (entry?.relaunch === undefined) throw new Error(`${name} is not a service or the simulator of this stack`);
  await entry.stop();
  const handle = entry.relaunch.spawn();
  entry.handle = handle;
  entry.stop = () => handle.stop();
  entry.descriptor = { ...entry.descriptor, pid: handle.pid };
  processes.set(name, handle);
  descriptor.processes = started.map((candidate) => candidate.descriptor);
  writeDescriptor(options.stateDir, descriptor);
  await waitReady(
    name,
    entry.relaunch.readyUrl,
    entry.descriptor.logFile,
    options.readyTimeoutMs ?? 90_000,
    handle.exited,
  );
}

interface StackChains {
  chains: ChainDescriptor[];
  /** Only when the launcher deployed the devnet itself. */
  accounts?: DevnetAccounts;
  /** The chains file to write, when the launcher deployed the devnet itself. */
  config?: ChainConfig;
}

/** One anvil per chain of the local template, the devnet contracts on each, and the chains file the services read. */
async function startDevnetChains(options: StartStackOptions, logs: string, track: Track): Promise<StackChains> {
  const template = await loadChainConfig(options.chainsTemplate ?? localChainsTemplate);
  const portOf: Record<string, number> = {
    origin: options.ports.anvilOrigin,
    destination: options.ports.anvilDestination,
  };
  const running = await Promise.all(
    template.chains.map(async (chain) => {
      const logFile = join(logs, `anvil-${chain.name}.log`);
      const anvil = await startAnvil({
        port: portOf[chain.name],
        chainId: chain.chainId,
        blockTimeSeconds: Math.max(1, Math.round(chain.blockTimeMs / 1000)),
        logFile,
        detached: options.detached,
      });
      track(`anvil-${chain.name}`, anvil.process, logFile, () => anvil.stop());
      options.progress.done(`anvil ${chain.name} (chain id ${chain.chainId}) on ${anvil.rpcUrl}`);
      return { chain, rpcUrl: anvil.rpcUrl };
    }),
  );
  options.progress.step("deploying devnet contracts");
  const deployment = await deployDevnet({
    chains: running.map(({ chain, rpcUrl }) => ({
      name: chain.name,
      chainId: chain.chainId,
      rpcUrl,
      roles: chain.roles,
    })),
  });
  const chains: ChainConfig = {
    ...template,
    chains: running.map(({ chain, rpcUrl }) => ({
      ...chain,
      rpcUrl,
      contracts: { ...chain.contracts, ...deployment.chains[chain.name]!.contracts },
    })),
  };
  options.progress.done("devnet contracts deployed");
  return { chains: chains.chains.map(describeChain), accounts: deployment.accounts, config: chains };
}

async function describeExternalChains(file: string): Promise<StackChains> {
  return { chains: (await loadChainConfig(file)).chains.map(describeChain) };
}

/** A chain as the descriptor shows it: contracts that have an address, and the tokens by symbol. */
function describeChain(chain: ChainConfig["chains"][number]): ChainDescriptor {
  const { tokens, ...contracts } = chain.contracts;
  return {
    name: chain.name,
    chainId: chain.chainId,
    rpcUrl: chain.rpcUrl,
    contracts: Object.fromEntries(
      Object.entries(contracts).filter((entry): entry is [string, `0x${string}`] => typeof entry[1] === "string"),
    ),
    tokens: { ...tokens },
  };
}

/**
 * The deployment data integrators read (deploy/config), with the addresses this run deployed,
 * made from the chains file the services get so the two cannot differ; its file URL, which the
 * intents-gateway's UNSUPPORTED_ROUTE problems point to.
 */
async function writeDeploymentData(stateDir: string, config: ChainConfig): Promise<string> {
  const file = join(stateDir, DEPLOYMENT_FILE_NAME);
  const catalog = await loadTokenCatalog(tokenCatalogFile("local"));
  writeFileSync(file, renderJson(deploymentDataOf(config, catalog)));
  return pathToFileURL(file).href;
}

/**
 * The gateway's Cache-Control runs to the next expected block: with the local native network's
 * block timer that is its block time, not mainnet's 12 s (a chain whose blocks the caller builds
 * keeps the default).
 */
function blockTimeEnv(name: ServiceName, options: StartStackOptions): Record<string, string> {
  const blockTimeMs = options.nativeBlockTimeMs ?? 2_000;
  if (name !== "gateway" || options.nativeNetwork !== true || blockTimeMs === 0) return {};
  return { DATA_BLOCK_SECONDS: String(Math.max(1, Math.round(blockTimeMs / 1_000))) };
}
