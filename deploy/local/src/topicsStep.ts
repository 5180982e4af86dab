import { createKafkaClient, type KafkaCredentials, migratePlatformTopics } from "@platform/bus";
import { createLogger } from "@platform/log";
import { waitFor } from "@platform/testing";

/**
 * The stack's topics step, before any service starts: every topic of the catalog created with
 * its settings (replication as the stack's Kafka has nodes, the chain topics' retention as the
 * stack was asked), as the Kubernetes Job `kafka-topics` does. On the stack's own Kafka it runs as
 * the `topics` user, the only one granted CREATE and ALTER_CONFIGS; on an external Kafka as that
 * Kafka's URL says. The services only wait for their topics (KAFKA_CREATE_TOPICS=false).
 */
export async function createStackTopics(options: {
  brokers: string[];
  credentials?: KafkaCredentials;
  replicationFactor: number;
  chainTopicsRetentionMs?: number;
}): Promise<string[]> {
  const logger = createLogger({ service: "stack-topics", level: "silent" });
  const kafka = createKafkaClient({
    brokers: options.brokers,
    clientId: "stack-topics",
    logger,
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
  });
  // A broker just started, and ACLs just granted, may refuse for a moment: try again, as a Job is.
  const report = await waitFor(
    () =>
      migratePlatformTopics(kafka, {
        replicationFactor: options.replicationFactor,
        ...(options.chainTopicsRetentionMs === undefined
          ? {}
          : { chainTopicsRetentionMs: options.chainTopicsRetentionMs }),
        logger,
      }),
    { what: "the stack's kafka topics", timeoutMs: 60_000, intervalMs: 250 },
  );
  return [...report.created, ...report.updated.map((entry) => entry.topic), ...report.unchanged];
}
