import { retryDelay } from "@platform/errors/base";
import type { Logger } from "@platform/log";
import type { TopicName } from "@platform/proto/topics";
import type { Kafka } from "kafkajs";
import { migrateTopics } from "./migrateTopics.js";
import { requireTopics } from "./requireTopics.js";
import { topicSpecs } from "./topicSpecs.js";

export interface EnsuredTopics {
  /** True once the topics exist with their settings; a readiness check. */
  ready(): boolean;
  stop(): void;
}

/**
 * Makes sure the topics a service writes exist at start-up, retrying in the background (1 s
 * doubling to 30 s) while Kafka is away or a topic is missing, so the service boots and reports
 * not-ready instead of failing, and becomes ready once they are there.
 *
 * With `create: false` (the platform's deployments: KAFKA_CREATE_TOPICS=false) it only waits for
 * the topics, which the platform's topics step creates (migratePlatformTopics), and needs no
 * grant but DESCRIBE. With `create` (the default, for a bare broker as in tests) it creates them
 * with their catalog settings and brings the configs of existing ones to them, which needs
 * CREATE and ALTER_CONFIGS.
 */
export function ensureTopics(
  kafka: Kafka,
  options: {
    topics: readonly TopicName[];
    replicationFactor: number;
    logger: Logger;
    /** `retention.ms` of the chain topics among them (CHAIN_TOPICS_RETENTION_MS); topicSpecs' default otherwise. */
    chainTopicsRetentionMs?: number;
    /** Whether it creates and migrates the topics (true by default) or only waits for them. */
    create?: boolean;
  },
): EnsuredTopics {
  let done = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const specs = topicSpecs({
    replicationFactor: options.replicationFactor,
    ...(options.chainTopicsRetentionMs === undefined ? {} : { chainTopicsRetentionMs: options.chainTopicsRetentionMs }),
  }).filter((spec) => options.topics.includes(spec.name as TopicName));

  const attempt = async (failures: number): Promise<void> => {
    const admin = kafka.admin();
    try {
      await admin.connect();
      if (options.create ?? true) await migrateTopics(admin, specs, { logger: options.logger });
      else await requireTopics(admin, options.topics);
      done = true;
    } catch (error) {
      const delay = retryDelay(error, failures, { firstMs: 1_000, maxMs: 30_000 });
      if (delay === undefined) {
        options.logger.error({ err: error, topics: options.topics }, "cannot create topics; not trying again");
        return;
      }
      options.logger.warn(
        { err: error, topics: options.topics, failures: failures + 1 },
        (options.create ?? true) ? "could not create topics yet; retrying" : "topics not there yet; retrying",
      );
      if (!stopped) {
        timer = setTimeout(() => void attempt(failures + 1), delay);
        timer.unref();
      }
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  };
  void attempt(0);

  return {
    ready: () => done,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
