import type { Autoscaling, Deployable, Resources, ServiceName } from "./deployable.js";
import { serverSecretsOf } from "./serverCredentials.js";

/**
 * The deployables of the platform on Kubernetes, as data. `manifests.ts` turns this table into the
 * kustomize base (`deploy/k8s/base`); the overlays tune replicas, resources, images, settings and
 * network ranges on top. One row is one Deployment with its Service, HorizontalPodAutoscaler,
 * PodDisruptionBudget and NetworkPolicy.
 */

import { kafkaSecretName } from "./kafkaSecrets.js";
import { POSTGRES_SECRETS, postgresSecretsOf } from "./postgresRoles.js";

export const NAMESPACE = "platform";
export const IMAGE_REGISTRY = "registry.example/platform";
/** The tag the base uses; overlays set their own through kustomize `images:`. */
export const BASE_IMAGE_TAG = "0.1.0";

export const GRPC_PORT = 50051;
export const OPS_PORT = 9464;
export const HTTP_PORT = 8080;
/**
 * Namespace of the Ingress controller, the only source the gateway's NetworkPolicy admits on its
 * HTTP port: the gateway believes X-Forwarded-For only from TRUST_PROXY_CIDRS, and a pod elsewhere
 * in the cluster that could reach it directly would be a proxy nobody vouched for.
 */
export const INGRESS_CONTROLLER_NAMESPACE = "ingress-nginx";
/** The uid of the `node` user the Dockerfile's runtime stage switches to. */
export const RUN_AS_UID = 1000;

/** Seconds a terminating pod keeps serving while endpoint removal reaches clients and DNS. */
export const PRE_STOP_SLEEP_SECONDS = 5;
/** What each process gets to drain after SIGTERM (SHUTDOWN_TIMEOUT_MS); it exits by itself then. */
export const SHUTDOWN_TIMEOUT_MS = 15_000;
/** preStop + shutdown + margin: the kubelet's SIGKILL never cuts a drain short. */
export const TERMINATION_GRACE_SECONDS = 30;

export const CONFIG_MAP = "platform-config";
export const CHAINS_CONFIG_MAP = "platform-chains";
export const CHAINS_MOUNT_PATH = "/etc/platform/chains";
export const CHAINS_FILE = `${CHAINS_MOUNT_PATH}/chains.json`;
export const SERVICE_ACCOUNT = "platform";
/** The Job of the platform's Kafka topics step (kafkaTopicsJob.ts), which alone creates topics. */
export const KAFKA_TOPICS_JOB = "kafka-topics";

/** `dns:///name.ns.svc.cluster.local:port`: grpc-js resolves every pod of the headless Service and balances round-robin. */
export function grpcTarget(deployable: string, namespace = NAMESPACE): string {
  return `dns:///${deployable}.${namespace}.svc.cluster.local:${GRPC_PORT}`;
}

export function imageOf(service: ServiceName): string {
  return `${IMAGE_REGISTRY}/${service}`;
}

const small: Resources = { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } };
const medium: Resources = { requests: { cpu: "200m", memory: "192Mi" }, limits: { cpu: "1", memory: "384Mi" } };
const stateless = (minReplicas: number, maxReplicas: number): Autoscaling => ({
  minReplicas,
  maxReplicas,
  cpuUtilization: 70,
  scaleDownStabilizationSeconds: 300,
});

export const DATA_QUERY_GROUPS = ["accounts", "market", "subnets"] as const;
export const PROJECTIONS = ["intents", "accounts", "market", "subnets"] as const;
/** The chain-ingestor's sources (its INGEST_SOURCES values); each runs in exactly one singleton Deployment. */
export const INGEST_SOURCES = ["intents", "native", "price"] as const;

/**
 * V8 flags (NODE_OPTIONS) per service: the same as the local stack's (deploy/local's NODE_FLAGS,
 * where the measurement that chose them is; nodeOptions.int.test.ts keeps the two equal). Node reads
 * the variable itself; no config schema does.
 */
export const NODE_OPTIONS: Readonly<Partial<Record<ServiceName, string>>> = {
  gateway: "--max-semi-space-size=64",
  "data-query": "--max-semi-space-size=64",
};

export const DEPLOYABLES: Deployable[] = [
  {
    name: "gateway",
    service: "gateway",
    role: "gateway",
    // NATS: the projections' change signals, so conditional Data API reads answer 304 without data-query.
    uses: { redis: true, nats: true },
    calls: ["auth", "tc", "intents-gateway", ...DATA_QUERY_GROUPS.map((group) => `data-query-${group}`)],
    env: {
      PUBLIC_BASE_URL: { configMapKey: "PUBLIC_BASE_URL" },
      TRUST_PROXY_CIDRS: { configMapKey: "TRUST_PROXY_CIDRS" },
      AUTH_GRPC_TARGET: grpcTarget("auth"),
      TC_GRPC_TARGET: grpcTarget("tc"),
      INTENTS_GRPC_TARGET: grpcTarget("intents-gateway"),
      DATA_ACCOUNTS_GRPC_TARGET: grpcTarget("data-query-accounts"),
      DATA_MARKET_GRPC_TARGET: grpcTarget("data-query-market"),
      DATA_SUBNETS_GRPC_TARGET: grpcTarget("data-query-subnets"),
      NODE_OPTIONS: NODE_OPTIONS.gateway!,
    },
    resources: { requests: { cpu: "250m", memory: "256Mi" }, limits: { cpu: "1", memory: "512Mi" } },
    scaling: stateless(2, 10),
  },
  {
    name: "auth",
    service: "auth",
    role: "backend",
    uses: { redis: true, kafka: true },
    calls: [],
    // Key administration on loopback only: no pod reaches it (NetworkPolicies aside), an operator
    // does through `kubectl port-forward deploy/auth 50061`.
    env: { ADMIN_GRPC_HOST: "127.0.0.1", ADMIN_GRPC_PORT: "50061" },
    resources: small,
    scaling: stateless(2, 6),
    secrets: [
      {
        secretName: "auth-pepper",
        mountPath: "/var/run/secrets/platform/auth-pepper",
        env: { name: "AUTH_PEPPER_FILE", value: "/var/run/secrets/platform/auth-pepper/pepper" },
      },
      {
        secretName: "auth-signing-keys",
        mountPath: "/var/run/secrets/platform/auth-signing-keys",
        env: { name: "AUTH_SIGNING_KEYS_DIR", value: "/var/run/secrets/platform/auth-signing-keys" },
      },
    ],
  },
  {
    name: "tc",
    service: "tc",
    role: "backend",
    // Contract-wallet acceptance (ERC-1271/6492) reads the chains named in the chains file.
    uses: { redis: true, kafka: true, chainRpc: true, chainsFile: true },
    calls: [],
    env: {
      TC_CURRENT_VERSION: { configMapKey: "TC_CURRENT_VERSION" },
      // The SIWE domain, uri and chains the server accepts come from here, never from a request.
      SIWE_DOMAIN: { configMapKey: "SIWE_DOMAIN" },
      SIWE_URI: { configMapKey: "SIWE_URI" },
      SIWE_CHAIN_IDS: { configMapKey: "SIWE_CHAIN_IDS" },
    },
    resources: small,
    scaling: stateless(2, 6),
  },
  {
    name: "intents-gateway",
    service: "intents-gateway",
    role: "backend",
    uses: { redis: true, kafka: true, nats: true, chainRpc: true, chainsFile: true },
    calls: ["tc"],
    env: { TC_GRPC_TARGET: grpcTarget("tc") },
    resources: medium,
    scaling: stateless(2, 10),
  },
  ...DATA_QUERY_GROUPS.map(
    (group): Deployable => ({
      name: `data-query-${group}`,
      service: "data-query",
      role: "backend",
      // The market deployment also serves the data event streams (the `events` group): they follow
      // the market's own changes most, and the gateway reaches them at the market's address.
      // History and past blocks come from PostgreSQL (its replica), the head from Redis.
      uses:
        group === "market"
          ? { redis: true, nats: true, postgres: "data_query" }
          : { redis: true, postgres: "data_query" },
      calls: [],
      env: {
        DATA_QUERY_GROUPS: group === "market" ? "market,events" : group,
        NODE_OPTIONS: NODE_OPTIONS["data-query"]!,
      },
      // The limit leaves room for the 64 MiB semi-spaces NODE_OPTIONS asks for (up to 128 MiB of young generation).
      resources: { requests: { cpu: "200m", memory: "192Mi" }, limits: { cpu: "1", memory: "384Mi" } },
      scaling: stateless(2, 10),
    }),
  ),
  ...PROJECTIONS.map(
    (projection): Deployable => ({
      name: `projector-${projection}`,
      service: "projector",
      role: "worker",
      // Each projection writes its history to PostgreSQL (the primary) besides Redis.
      uses: { redis: true, kafka: true, nats: true, postgres: "projector" },
      calls: [],
      // Must equal the deployed FullSettlers' REFUND_GRACE: refundableAt is derived from it.
      env: {
        PROJECTIONS: projection,
        INTENTS_REFUND_GRACE_SECONDS: { configMapKey: "INTENTS_REFUND_GRACE_SECONDS" },
      },
      resources: medium,
      // One consumer group per projection: more pods than the topic's partitions would idle.
      scaling: { ...stateless(1, 4), scaleDownStabilizationSeconds: 600 },
    }),
  ),
  // One Deployment per ingestor source, each a singleton: a source's Kafka transactional ids
  // (`chain-ingestor-intents-<chain>`, `chain-ingestor-native-<network>`,
  // `chain-ingestor-price-<chain>`) and checkpoints are its own, so they run side by side, and a
  // source never has two active instances.
  ...INGEST_SOURCES.map(
    (source): Deployable => ({
      name: `chain-ingestor-${source}`,
      service: "chain-ingestor",
      role: "worker",
      // Only the intents source listens to NATS (`intents.notified` hints).
      uses: { kafka: true, chainRpc: true, chainsFile: true, ...(source === "intents" ? { nats: true } : {}) },
      calls: [],
      env: { INGEST_SOURCES: source },
      // The native source keeps a mainnet-sized chain's recent holder and subnet states: its memory
      // at that size, and its peaks on runs of epoch blocks, are what bench/native/scale measures.
      resources:
        source === "native"
          ? { requests: { cpu: "500m", memory: "640Mi" }, limits: { cpu: "1", memory: "768Mi" } }
          : { requests: { cpu: "250m", memory: "256Mi" }, limits: { cpu: "1", memory: "512Mi" } },
      scaling: "singleton",
    }),
  ),
];

/** Services whose images the overlays tag. */
export const SERVICES: ServiceName[] = [
  "gateway",
  "auth",
  "tc",
  "intents-gateway",
  "data-query",
  "projector",
  "chain-ingestor",
];

/** Secrets the manifests reference; operators create them (README). */
export const REFERENCED_SECRETS: string[] = [
  ...new Set([
    ...DEPLOYABLES.flatMap((deployable) => [
      ...(deployable.secrets ?? []).map((secret) => secret.secretName),
      ...serverSecretsOf(deployable),
      ...(deployable.uses.kafka ? [kafkaSecretName(deployable.name)] : []),
      ...postgresSecretsOf(deployable),
    ]),
    // The history store's servers, backups and migrations (postgres.ts).
    ...POSTGRES_SECRETS,
    // The Kafka user of the topics Job (kafkaTopicsJob.ts).
    kafkaSecretName("topics"),
  ]),
];

/** Placeholder ranges the base uses for external dependencies; every overlay must replace them. */
export const UNCONFIGURED_CIDR = "192.0.2.0/24";
