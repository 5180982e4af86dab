import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { DEFAULT_CHAIN_TOPICS_RETENTION_MS } from "@platform/bus";
import { stringify } from "yaml";
import type { Deployable } from "./deployable.js";
import { CHAINS_CONFIG_MAP, CONFIG_MAP, DEPLOYABLES, NAMESPACE } from "./deployables.js";
import { kafkaTopicsManifests } from "./kafkaTopicsJob.js";
import {
  deployableManifests,
  type Manifest,
  namespaceManifest,
  serviceAccountManifest,
  sharedNetworkPolicies,
} from "./manifests.js";
import { generateObservability, observabilityManifests } from "./observability/files.js";
import { BASE_DIR, OBSERVABILITY_DIR, OPERATIONS_DIR } from "./paths.js";
import { migrateManifests, POSTGRES_URLS, postgresFiles, postgresManifests, restoreJob } from "./postgres.js";

const HEADER = [
  "# Generated from deploy/k8s/src/deployables.ts by `pnpm --filter @platform/k8s gen`.",
  "# Edit the table there and regenerate; a test fails when this file is stale.",
].join("\n");

/** Defaults the overlays merge their own values into (configMapGenerator `behavior: merge`). */
export const BASE_SETTINGS: Record<string, string> = {
  KAFKA_BROKERS: "kafka-0.kafka.example:9092,kafka-1.kafka.example:9092,kafka-2.kafka.example:9092",
  REDIS_URL: "redis://redis.example:6379",
  NATS_URL: "nats://nats.example:4222",
  TC_CURRENT_VERSION: "1",
  LOG_LEVEL: "info",
  PUBLIC_BASE_URL: "https://api.example",
  // The pod range of the Ingress controller (the only source the gateway's NetworkPolicy admits):
  // X-Forwarded-For is believed only on its connections. Every overlay sets its cluster's range.
  TRUST_PROXY_CIDRS: "10.244.0.0/16",
  INTENTS_REFUND_GRACE_SECONDS: "3600",
  // retention.ms of the chain topics (chain.network.v1, oracle.prices.v1), 7 days: their projections'
  // history is in PostgreSQL. Read by every deployable that creates them (chain-ingestor, projector).
  CHAIN_TOPICS_RETENTION_MS: String(DEFAULT_CHAIN_TOPICS_RETENTION_MS),
  SIWE_DOMAIN: "api.example",
  SIWE_URI: "https://api.example",
  SIWE_CHAIN_IDS: "11155111,84532,945",
  // The history store in the namespace (postgres.ts); no credentials: each role's are in its Secret.
  ...POSTGRES_URLS,
};

/** The PostgreSQL files, each written to base/postgres/ and put in its ConfigMap by the kustomization. */
const POSTGRES_FILES_DIR = "postgres";

function documents(manifests: Manifest[], source = "deployables.ts"): string {
  const header = source === "deployables.ts" ? HEADER : HEADER.replace("src/deployables.ts", `src/${source}`);
  return `${header}\n${manifests.map((manifest) => stringify(manifest, { lineWidth: 0, aliasDuplicateObjects: false })).join("---\n")}`;
}

function kustomization(deployables: Deployable[]): string {
  const body = {
    apiVersion: "kustomize.config.k8s.io/v1beta1",
    kind: "Kustomization",
    namespace: NAMESPACE,
    labels: [{ pairs: { "app.kubernetes.io/part-of": "platform" }, includeSelectors: false, includeTemplates: true }],
    resources: [
      "namespace.yaml",
      "network-policies.yaml",
      ...deployables.map((deployable) => `${deployable.name}.yaml`),
      "postgres.yaml",
      "history-migrate.yaml",
      "kafka-topics.yaml",
      "observability.yaml",
    ],
    configMapGenerator: [
      { name: CONFIG_MAP, literals: Object.entries(BASE_SETTINGS).map(([key, value]) => `${key}=${value}`) },
      { name: CHAINS_CONFIG_MAP, files: ["chains.json=config/chains.json"] },
      // A change to a file renames its ConfigMap (content hash), which rolls the pods that mount it.
      ...Object.entries(postgresFiles()).map(([name, files]) => ({
        name,
        files: Object.keys(files).map((file) => `${file}=${POSTGRES_FILES_DIR}/${file}`),
      })),
    ],
  };
  return `${HEADER}\n${stringify(body, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

/** Every generated file of deploy/k8s/base, by path relative to it. */
export function generateBase(deployables: Deployable[] = DEPLOYABLES): Map<string, string> {
  const files = new Map<string, string>();
  files.set("kustomization.yaml", kustomization(deployables));
  files.set("namespace.yaml", documents([namespaceManifest(), serviceAccountManifest()]));
  files.set("network-policies.yaml", documents(sharedNetworkPolicies(deployables)));
  for (const deployable of deployables)
    files.set(`${deployable.name}.yaml`, documents(deployableManifests(deployable, deployables)));
  files.set("postgres.yaml", documents(postgresManifests(deployables), "postgres.ts"));
  files.set("history-migrate.yaml", documents(migrateManifests(), "postgres.ts"));
  files.set("kafka-topics.yaml", documents(kafkaTopicsManifests(), "kafkaTopicsJob.ts"));
  for (const configMapFiles of Object.values(postgresFiles()))
    for (const [file, content] of Object.entries(configMapFiles)) files.set(`${POSTGRES_FILES_DIR}/${file}`, content);
  // The alert rules (PrometheusRule) and Grafana dashboards (ConfigMaps), from src/observability.
  files.set("observability.yaml", documents(observabilityManifests()));
  return files;
}

/**
 * Manifests an operator applies by hand, outside the overlays (deploy/k8s/operations): the
 * PostgreSQL restore Job. Generated and validated like the base, never applied with it.
 */
export function generateOperations(): Map<string, string> {
  return new Map([
    [
      "postgres-restore.yaml",
      documents([restoreJob()], "postgres.ts").replace(
        "# Edit the table there and regenerate",
        "# Not part of the base: apply it by hand to restore a backup (deploy/k8s/README.md, PostgreSQL).\n# Edit the table there and regenerate",
      ),
    ],
  ]);
}

/** Writes the base and removes YAML files of deployables that are gone (every YAML file there is generated). */
export async function writeBase(
  dir = BASE_DIR,
  observabilityDir = OBSERVABILITY_DIR,
  operationsDir = OPERATIONS_DIR,
): Promise<{ written: string[]; removed: string[] }> {
  const files = generateBase();
  for (const [name, content] of files) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), content);
  }
  const removed = (await readdir(dir)).filter((name) => name.endsWith(".yaml") && !files.has(name));
  for (const name of removed) await rm(join(dir, name));
  for (const [name, content] of generateOperations()) {
    await mkdir(dirname(join(operationsDir, name)), { recursive: true });
    await writeFile(join(operationsDir, name), content);
  }
  const observability = generateObservability();
  for (const [name, content] of observability) {
    await mkdir(dirname(join(observabilityDir, name)), { recursive: true });
    await writeFile(join(observabilityDir, name), content);
  }
  return {
    written: [
      ...files.keys(),
      ...[...observability.keys()].map((name) => `observability/${name}`),
      ...[...generateOperations().keys()].map((name) => `operations/${name}`),
    ],
    removed,
  };
}

/** Generated files whose content on disk differs, and YAML files in base/ the generator does not make. */
export async function staleBaseFiles(
  dir = BASE_DIR,
  observabilityDir = OBSERVABILITY_DIR,
  operationsDir = OPERATIONS_DIR,
): Promise<string[]> {
  const files = generateBase();
  const stale: string[] = [];
  for (const [name, content] of files) {
    const onDisk = await readFile(join(dir, name), "utf8").catch(() => undefined);
    if (onDisk !== content) stale.push(name);
  }
  for (const name of await readdir(dir)) if (name.endsWith(".yaml") && !files.has(name)) stale.push(name);
  for (const [name, content] of generateObservability()) {
    const onDisk = await readFile(join(observabilityDir, name), "utf8").catch(() => undefined);
    if (onDisk !== content) stale.push(`observability/${name}`);
  }
  for (const [name, content] of generateOperations()) {
    const onDisk = await readFile(join(operationsDir, name), "utf8").catch(() => undefined);
    if (onDisk !== content) stale.push(`operations/${name}`);
  }
  return stale;
}
