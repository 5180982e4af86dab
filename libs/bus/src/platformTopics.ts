import type { Logger } from "@platform/log";
import type { Kafka } from "kafkajs";
import { migrateTopics, type TopicMigrationReport } from "./migrateTopics.js";
import { topicSpecs } from "./topicSpecs.js";

/**
 * The platform's topics step: creates every topic of the catalog with its settings and brings the
 * configs of existing ones to it (the chain topics to `chainTopicsRetentionMs`). Run before the
 * services, as the principal `topics` (kafkaAcl.ts), which alone holds CREATE and ALTER_CONFIGS:
 * the Kubernetes Job `kafka-topics` (the projector image's `node dist/topics.js`) and the local
 * stack's topics step. Idempotent, so a retried Job or a restarted stack is harmless.
 */
export async function migratePlatformTopics(
  kafka: Kafka,
  options: { replicationFactor: number; chainTopicsRetentionMs?: number; logger: Logger },
): Promise<TopicMigrationReport> {
  const specs = topicSpecs({
    replicationFactor: options.replicationFactor,
    ...(options.chainTopicsRetentionMs === undefined ? {} : { chainTopicsRetentionMs: options.chainTopicsRetentionMs }),
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    return await migrateTopics(admin, specs, { logger: options.logger });
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
