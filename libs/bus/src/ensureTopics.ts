import { retryDelay } from "@platform/errors/base";
import type { Logger } from "@platform/log";
import type { TopicName } from "@platform/proto/topics";
import type { Kafka } from "kafkajs";
import { migrateTopics } from "./migrateTopics.js";
import { topicSpecs } from "./topicSpecs.js";

export interface EnsuredTopics {
  /** True once the topics exist with their settings; a readiness check. */
  ready(): boolean;
  stop(): void;
}

/**
 * Creates the topics a service writes, with their catalog settings, and brings the configs of
 * existing ones to them (a chain topic kept for ever is altered to its bounded retention), at start-up — retrying in the
 * background (1 s doubling to 30 s) while Kafka is away, so the service boots and reports
 * not-ready instead of failing.
 */
export function ensureTopics(
  kafka: Kafka,
  options: {
    topics: readonly TopicName[];
    replicationFactor: number;
    logger: Logger;
    /** `retention.ms` of the chain topics among them (CHAIN_TOPICS_RETENTION_MS); topicSpecs' default otherwise. */
    chainTopicsRetentionMs?: number;
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
      await migrateTopics(admin, specs, { logger: options.logger });
      done = true;
    } catch (error) {
      const delay = retryDelay(error, failures, { firstMs: 1_000, maxMs: 30_000 });
      if (delay === undefined) {
        options.logger.error({ err: error, topics: options.topics }, "cannot create topics; not trying again");
        return;
      }
      options.logger.warn(
        { err: error, topics: options.topics, failures: failures + 1 },
        "could not create topics yet; retrying",
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
