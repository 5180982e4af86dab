import { join } from "node:path";
import { devnetSettlerParams } from "@platform/devnet";
import { withKafkaCredentials } from "./kafkaCredentials.js";
import type { PortPlan } from "./ports.js";
import { serviceCredentialEnv } from "./serverUsers.js";

export type ServiceName = "auth" | "tc" | "data-query" | "intents-gateway" | "chain-ingestor" | "projector" | "gateway";

/** Start order: backends first, the gateway last (its readiness waits on all of them). */
export const SERVICE_ORDER: ServiceName[] = [
  "auth",
  "tc",
  "data-query",
  "intents-gateway",
  "projector",
  "chain-ingestor",
  "gateway",
];

export interface ServiceProcessSpec {
  name: ServiceName;
  env: Record<string, string>;
  /** Every service exposes /readyz (each dependency listed) and /metrics on its ops port. */
  readyUrl: string;
  grpcTarget?: string;
  /** auth's key administration (AuthAdminService), on its own listener. */
  adminGrpcTarget?: string;
}

export interface Infrastructure {
  kafkaBrokers: string[];
  /**
   * Whether a topics step of its own created every topic before the services (the stack's
   * topicsStep.ts, as the Kubernetes Job kafka-topics does): the services then only wait for their
   * topics (KAFKA_CREATE_TOPICS=false) and their Kafka users may not create any. Without it (a test
   * or benchmark with a bare broker of its own) they create their topics themselves.
   */
  kafkaTopicsStep?: boolean;
  redisUrl: string;
  /**
   * A Redis Cluster's nodes (`host:port,…`) for the read models: data-query (reading from replicas),
   * intents-gateway and the projector (one replica per commit) use it instead of `redisUrl`.
   */
  redisClusterNodes?: string;
  natsUrl: string;
  /**
   * The history database (`postgres://host:port/platform`, no credentials) for the projector and
   * data-query, each as its own role (`<service>-postgres/password`); absent, they get none.
   */
  postgresUrl?: string;
  chainsFile: string;
  /**
   * Folder of the stack's secrets, laid out like auth's Kubernetes Secret mounts:
   * `auth-pepper/pepper` (at least 32 random bytes) and `auth-signing-keys/` (one signing-key file
   * per key, written by `pnpm --silent cli signing-keys generate --dir <secretsDir>/auth-signing-keys`),
   * and, on the Redis and NATS the stack started, each service's password (`<service>-redis/password`,
   * `<service>-nats/password`, serverUsers.ts): the specs name them with the service's user; the
   * projector's and data-query's history roles' (`<service>-postgres/password`) likewise.
   */
  secretsDir: string;
}

/**
 * Where a service of the read models finds Redis: the standalone server, or the stack's cluster
 * with what the cluster adds for that service (`onCluster`: replica reads, the replica wait).
 */
function readModelRedis(infra: Infrastructure, onCluster: Record<string, string>): Record<string, string> {
  if (infra.redisClusterNodes === undefined) return { REDIS_URL: infra.redisUrl };
  return { REDIS_MODE: "cluster", REDIS_NODES: infra.redisClusterNodes, ...onCluster };
}

/** The history database, for the services that have a role there (the projector, data-query). */
function history(infra: Infrastructure): Record<string, string> {
  return infra.postgresUrl === undefined ? {} : { POSTGRES_URL: infra.postgresUrl };
}

/** The environment of each service process: exactly the variables its config schema reads. */
/**
 * Origins whose pages may call the local gateway from a browser: a web app's development server on
 * its usual port (Vite's 5173), under both names of loopback. Production allows none by default.
 */
export const LOCAL_DEMO_ORIGINS = ["http://localhost:5173", "http://127.0.0.1:5173"];

export function serviceProcessSpecs(ports: PortPlan, infra: Infrastructure, logLevel: string): ServiceProcessSpec[] {
  // The stack's topics step (topicsStep.ts) creates every topic before the services start, with
  // the stack's replication and chain-topic retention; the services only wait for their topics.
  // Without the step, on a test's broker of its own (one node), the services create their topics.
  const kafka = {
    KAFKA_BROKERS: infra.kafkaBrokers.join(","),
    ...(infra.kafkaTopicsStep === true
      ? { KAFKA_CREATE_TOPICS: "false" }
      : { KAFKA_CREATE_TOPICS: "true", KAFKA_REPLICATION_FACTOR: "1" }),
  };
  const backend = (
    name: ServiceName,
    grpcPort: number,
    opsPort: number,
    env: Record<string, string>,
  ): ServiceProcessSpec => ({
    name,
    grpcTarget: `127.0.0.1:${grpcPort}`,
    readyUrl: `http://127.0.0.1:${opsPort}/readyz`,
    env: {
      GRPC_HOST: "127.0.0.1",
      GRPC_PORT: String(grpcPort),
      OPS_HOST: "127.0.0.1",
      OPS_PORT: String(opsPort),
      LOG_LEVEL: logLevel,
      ...env,
    },
  });
  const specs: ServiceProcessSpec[] = [
    {
      ...backend("auth", ports.authGrpc, ports.authOps, {
        ADMIN_GRPC_HOST: "127.0.0.1",
        ADMIN_GRPC_PORT: String(ports.authAdminGrpc),
        REDIS_URL: infra.redisUrl,
        ...kafka,
        AUTH_PEPPER_FILE: join(infra.secretsDir, "auth-pepper", "pepper"),
        AUTH_SIGNING_KEYS_DIR: join(infra.secretsDir, "auth-signing-keys"),
      }),
      adminGrpcTarget: `127.0.0.1:${ports.authAdminGrpc}`,
    },
    backend("tc", ports.tcGrpc, ports.tcOps, {
      ...readModelRedis(infra, {}),
      ...kafka,
      TC_CURRENT_VERSION: "1",
      CHAINS_FILE: infra.chainsFile,
      // Messages are signed for the public gateway, the origin clients see; every local EVM chain may be named.
      SIWE_DOMAIN: `127.0.0.1:${ports.gateway}`,
      SIWE_URI: `http://127.0.0.1:${ports.gateway}`,
      SIWE_CHAIN_IDS: "31337,31338",
    }),
    backend("data-query", ports.dataQueryGrpc, ports.dataQueryOps, {
      ...readModelRedis(infra, { REDIS_READ_FROM: "replicas" }),
      DATA_QUERY_GROUPS: "accounts,market,subnets,events",
      NATS_URL: infra.natsUrl,
      ...history(infra),
    }),
    backend("intents-gateway", ports.intentsGrpc, ports.intentsOps, {
      ...readModelRedis(infra, {}),
      ...kafka,
      NATS_URL: infra.natsUrl,
      TC_GRPC_TARGET: `127.0.0.1:${ports.tcGrpc}`,
      CHAINS_FILE: infra.chainsFile,
    }),
    backend("projector", ports.projectorGrpc, ports.projectorOps, {
      ...readModelRedis(infra, { REDIS_WAIT_REPLICAS: "1" }),
      ...kafka,
      NATS_URL: infra.natsUrl,
      PROJECTIONS: "intents,accounts,market,subnets",
      ...history(infra),
      // The devnet FullSettlers are deployed with this grace; refundable_at depends on it.
      INTENTS_REFUND_GRACE_SECONDS: String(devnetSettlerParams.refundGraceSeconds),
    }),
    backend("chain-ingestor", ports.ingestorGrpc, ports.ingestorOps, {
      ...kafka,
      NATS_URL: infra.natsUrl,
      CHAINS_FILE: infra.chainsFile,
      // A quarter of the devnet's 1 s block time, so the mirror trails the chains by little.
      INGEST_POLL_INTERVAL_MS: "250",
      // The intents source follows the EVM chains, the native source the real Subtensor runtime
      // (every Data API read model of the network: accounts, pools, emissions, subnets,
      // metagraphs, holders, totals), the price source the coin/USD feed on the origin chain.
      INGEST_SOURCES: "intents,native,price",
      INGEST_MAX_BLOCKS_PER_BATCH: "500",
      NOTIFIED_TX_DROP_AFTER_SECONDS: "600",
    }),
    {
      name: "gateway",
      readyUrl: `http://127.0.0.1:${ports.gatewayOps}/readyz`,
      env: {
        HTTP_HOST: "127.0.0.1",
        HTTP_PORT: String(ports.gateway),
        OPS_HOST: "127.0.0.1",
        OPS_PORT: String(ports.gatewayOps),
        PUBLIC_BASE_URL: `http://127.0.0.1:${ports.gateway}`,
        CORS_ALLOWED_ORIGINS: LOCAL_DEMO_ORIGINS.join(","),
        REDIS_URL: infra.redisUrl,
        AUTH_GRPC_TARGET: `127.0.0.1:${ports.authGrpc}`,
        TC_GRPC_TARGET: `127.0.0.1:${ports.tcGrpc}`,
        INTENTS_GRPC_TARGET: `127.0.0.1:${ports.intentsGrpc}`,
        DATA_ACCOUNTS_GRPC_TARGET: `127.0.0.1:${ports.dataQueryGrpc}`,
        DATA_MARKET_GRPC_TARGET: `127.0.0.1:${ports.dataQueryGrpc}`,
        DATA_SUBNETS_GRPC_TARGET: `127.0.0.1:${ports.dataQueryGrpc}`,
        // The projections' change signals: conditional Data API reads answer 304 without data-query.
        NATS_URL: infra.natsUrl,
        LOG_LEVEL: logLevel,
      },
    },
  ];
  // Each service's own Redis, NATS and PostgreSQL user (serverUsers.ts) and Kafka user
  // (kafkaCredentials.ts), when the stack made them.
  return specs.map((spec) =>
    withKafkaCredentials(
      { ...spec, env: { ...spec.env, ...serviceCredentialEnv(infra.secretsDir, spec.name, spec.env) } },
      infra.secretsDir,
    ),
  );
}

/**
 * V8 flags a service's node runs with, here as in the Kubernetes manifests (their NODE_OPTIONS,
 * deploy/k8s/src/deployables.ts; deploy/k8s's nodeOptions.int.test.ts keeps the two equal).
 *
 * The gateway and data-query allocate per request (parsed requests, answers, protobuf and HAL
 * objects) and keep little of it: a young generation of 64 MiB semi-spaces (V8's own limit is 16)
 * scavenges a quarter as often, and fewer short-lived objects are caught alive and copied: less
 * CPU per answer and a lower p99, which bench/data's mix measures (bench/HISTORY.md has the run that
 * chose it). The cost is memory: up to 128 MiB more per process at peak, which the manifests' limits
 * allow for.
 */
export const NODE_FLAGS: Readonly<Partial<Record<ServiceName, readonly string[]>>> = {
  gateway: ["--max-semi-space-size=64"],
  "data-query": ["--max-semi-space-size=64"],
};

/** How a service process is started: built JavaScript (the CLI, like production) or the TypeScript sources (tests). */
export type ServiceRuntime = "dist" | "source";

export function serviceCommand(
  repoRoot: string,
  name: ServiceName,
  runtime: ServiceRuntime,
): { command: string; args: string[] } {
  const flags = NODE_FLAGS[name] ?? [];
  if (runtime === "dist")
    return { command: process.execPath, args: [...flags, join(repoRoot, "services", name, "dist", "main.js")] };
  return {
    command: process.execPath,
    args: [
      ...flags,
      "--conditions=@platform/source",
      "--import",
      "tsx",
      join(repoRoot, "services", name, "src", "main.ts"),
    ],
  };
}
