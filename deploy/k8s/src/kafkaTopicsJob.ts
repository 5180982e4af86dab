import type { V1EnvVar, V1Job } from "@kubernetes/client-node";
import { stepJob } from "./batchJob.js";
import { CONFIG_MAP, KAFKA_TOPICS_JOB } from "./deployables.js";
import { kafkaSecretName } from "./kafkaSecrets.js";
import type { Manifest } from "./manifests.js";

/**
 * The platform's topics step in Kubernetes: a Job that creates every Kafka topic of the catalog
 * and brings its configs to it (the projector image's `node dist/topics.js`, libs/bus
 * migratePlatformTopics), as the Kafka user `topics`, the only principal granted CREATE and
 * ALTER_CONFIGS (libs/bus kafkaAcl.ts). The services' users hold neither: they wait, not ready,
 * until their topics exist (KAFKA_CREATE_TOPICS=false), and become ready by themselves once the
 * Job has run. Its pods reach only Kafka (the shared allow-egress-kafka policy) and DNS.
 */
/** The Kafka user of the Job (its grant: KAFKA_GRANTS.topics), whose Secret is `kafka-topics`. */
export const KAFKA_TOPICS_USER = "topics";

const NAME_LABEL = "app.kubernetes.io/name";
const configMapValue = (name: string, key = name): V1EnvVar => ({
  name,
  valueFrom: { configMapKeyRef: { name: CONFIG_MAP, key } },
});
const secretValue = (name: string, key: string): V1EnvVar => ({
  name,
  valueFrom: { secretKeyRef: { name: kafkaSecretName(KAFKA_TOPICS_USER), key } },
});

/** The Job (batchJob.ts stepJob): the projector image's `node dist/topics.js`, as the Kafka user `topics`. */
export function kafkaTopicsJob(): V1Job & Manifest {
  return stepJob({
    name: KAFKA_TOPICS_JOB,
    container: "topics",
    command: ["node", "dist/topics.js"],
    env: [
      configMapValue("LOG_LEVEL"),
      configMapValue("KAFKA_BROKERS"),
      configMapValue("CHAIN_TOPICS_RETENTION_MS"),
      secretValue("KAFKA_SASL_USERNAME", "username"),
      secretValue("KAFKA_SASL_PASSWORD", "password"),
    ],
  });
}

/** base/kafka-topics.yaml: the Job and its policy (no ingress; egress only through the shared Kafka and DNS policies). */
export function kafkaTopicsManifests(): Manifest[] {
  return [
    kafkaTopicsJob(),
    {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: KAFKA_TOPICS_JOB, labels: { [NAME_LABEL]: KAFKA_TOPICS_JOB } },
      spec: { podSelector: { matchLabels: { [NAME_LABEL]: KAFKA_TOPICS_JOB } }, policyTypes: ["Ingress", "Egress"] },
    } as Manifest,
  ];
}
