import { createKafkaClient, migratePlatformTopics } from "@platform/bus";
import { loadConfigOrExit, vars } from "@platform/config";
import { createLogger } from "@platform/log";
import { chainTopicVars, kafkaCredentialsOrExit, kafkaCredentialVars, kafkaTlsOf } from "@platform/service";
import { z } from "zod";

/*
 * The platform's topics step (libs/bus migratePlatformTopics): every topic of the catalog created
 * with its settings and the configs of existing ones brought to it, the chain topics to
 * CHAIN_TOPICS_RETENTION_MS. Run once per release before the services, as the Kafka user `topics`,
 * the only one granted CREATE and ALTER_CONFIGS (libs/bus kafkaAcl.ts): `node dist/topics.js`, the
 * Kubernetes Job `kafka-topics`'s command (the local stack runs the step itself). The services only
 * wait for their topics. Idempotent: a retried Job is harmless. Exit 0 once every topic is there,
 * 1 when it could not be (the reason logged), 78 on bad configuration.
 */
const topicsConfigSchema = z.object({
  KAFKA_BROKERS: vars.hostPortList(),
  ...kafkaCredentialVars,
  /** Replication of the topics it creates (3 in production: at least 3 brokers). */
  KAFKA_REPLICATION_FACTOR: vars.positiveInt().default(3),
  ...chainTopicVars,
  LOG_LEVEL: vars.logLevel().default("info"),
});

const config = loadConfigOrExit("projector-topics", topicsConfigSchema);
const credentials = kafkaCredentialsOrExit("projector-topics", config);
const log = createLogger({ service: "projector", level: config.LOG_LEVEL }).child({ job: "topics" });
const tls = kafkaTlsOf(config);
const kafka = createKafkaClient({
  brokers: config.KAFKA_BROKERS,
  clientId: "kafka-topics",
  logger: log,
  ...(credentials === undefined ? {} : { credentials }),
  ...(tls === undefined ? {} : { tls }),
});

try {
  const report = await migratePlatformTopics(kafka, {
    replicationFactor: config.KAFKA_REPLICATION_FACTOR,
    chainTopicsRetentionMs: config.CHAIN_TOPICS_RETENTION_MS,
    logger: log,
  });
  log.info(
    { created: report.created, updated: report.updated.map((entry) => entry.topic), drift: report.drift.length },
    `kafka topics in place (${report.created.length} created, ${report.updated.length} brought to spec)`,
  );
} catch (error) {
  const reason = error instanceof Error ? error.message : String(error);
  log.error({ err: error }, `kafka topics step failed: ${reason}`);
  process.exitCode = 1;
}
