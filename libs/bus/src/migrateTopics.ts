import type { Logger } from "@platform/log";
import kafkajs, { type Admin } from "kafkajs";
import type { TopicSpec } from "./topicSpecs.js";

const { ConfigResourceTypes, ConfigSource } = kafkajs;

export interface ConfigChange {
  name: string;
  /** The value before the migration; undefined when the broker did not report one. */
  from: string | undefined;
  to: string;
}

/** A topic whose partition count or replication differs from its spec; reported, never changed. */
export interface TopicDrift {
  topic: string;
  partitions: { spec: number; actual: number };
  replicationFactor: { spec: number; actual: number };
}

export interface TopicMigrationReport {
  created: string[];
  updated: { topic: string; changes: ConfigChange[] }[];
  unchanged: string[];
  drift: TopicDrift[];
  /** Existing topics whose configs differ from the spec, left as they are (`alterConfigs: false`). */
  differing: { topic: string; changes: ConfigChange[] }[];
}

export interface MigrateTopicsOptions {
  logger?: Logger;
  /** How long the broker may take to create the topics; 30 s by default. */
  timeoutMs?: number;
  /**
   * Whether the configs of existing topics are brought to their spec (true, the default: the
   * topics step, which holds ALTER_CONFIGS: kafkaAcl.ts `topics`) or only reported in `differing`
   * (false: a reader that creates a topic on a bare broker when it starts first, such as the
   * projector, whose configs stay the writer's to bring to spec).
   */
  alterConfigs?: boolean;
}

/**
 * Creates the missing topics with their settings and brings the configs of existing ones to
 * their spec. Idempotent, and safe when several services migrate at the same time. Partition
 * counts are never changed: adding partitions moves keys to other partitions and breaks
 * per-key ordering, so a difference is reported in `drift` (and logged) for an operator.
 */
export async function migrateTopics(
  admin: Admin,
  specs: readonly TopicSpec[],
  options: MigrateTopicsOptions = {},
): Promise<TopicMigrationReport> {
  const report: TopicMigrationReport = { created: [], updated: [], unchanged: [], drift: [], differing: [] };
  if (specs.length === 0) return report;
  const { logger, timeoutMs = 30_000, alterConfigs = true } = options;

  const existing = new Set(await step("list topics", () => admin.listTopics()));
  const missing = specs.filter((spec) => !existing.has(spec.name));
  if (missing.length > 0) {
    await step(`create topics ${missing.map((spec) => spec.name).join(", ")}`, () =>
      admin.createTopics({
        waitForLeaders: true,
        timeout: timeoutMs,
        topics: missing.map((spec) => ({
          topic: spec.name,
          numPartitions: spec.partitions,
          replicationFactor: spec.replicationFactor,
          configEntries: Object.entries(spec.configs).map(([name, value]) => ({ name, value })),
        })),
      }),
    );
  }

  const names = specs.map((spec) => spec.name);
  const [metadata, described] = await Promise.all([
    step("read topic metadata", () => admin.fetchTopicMetadata({ topics: names })),
    step("describe topic configs", () =>
      admin.describeConfigs({
        includeSynonyms: false,
        resources: names.map((name) => ({ type: ConfigResourceTypes.TOPIC, name })),
      }),
    ),
  ]);

  for (const spec of specs) {
    const created = missing.includes(spec);
    const resource = described.resources.find((entry) => entry.resourceName === spec.name);
    if (resource === undefined || resource.errorCode !== 0) {
      throw new Error(`migrateTopics: no configs for topic ${spec.name}`, {
        cause: resource ? new Error(resource.errorMessage) : undefined,
      });
    }
    const current = new Map(resource.configEntries.map((entry) => [entry.configName, entry]));
    const changes: ConfigChange[] = Object.entries(spec.configs)
      .filter(([name, value]) => current.get(name)?.configValue !== value)
      .map(([name, to]) => ({ name, from: current.get(name)?.configValue ?? undefined, to }));

    if (changes.length > 0 && !alterConfigs) {
      report.differing.push({ topic: spec.name, changes });
      logger?.warn(
        { topic: spec.name, changes },
        "kafka topic configs differ from this service's spec; left to the owner",
      );
    } else if (changes.length > 0) {
      // alterConfigs (kafkajs has no incremental variant) replaces the topic's whole set of
      // overrides, so the overrides the spec does not mention are sent back unchanged.
      const overrides = resource.configEntries
        .filter((entry) => entry.configSource === ConfigSource.TOPIC_CONFIG)
        .map((entry) => [entry.configName, entry.configValue] as const);
      const desired = { ...Object.fromEntries(overrides), ...spec.configs };
      await step(`alter configs of ${spec.name}`, () =>
        admin.alterConfigs({
          validateOnly: false,
          resources: [
            {
              type: ConfigResourceTypes.TOPIC,
              name: spec.name,
              configEntries: Object.entries(desired).map(([name, value]) => ({ name, value })),
            },
          ],
        }),
      );
      report.updated.push({ topic: spec.name, changes });
      logger?.info({ topic: spec.name, changes }, "kafka topic configs brought to spec");
    } else if (created) {
      report.created.push(spec.name);
      logger?.info({ topic: spec.name, partitions: spec.partitions }, "kafka topic created");
    } else {
      report.unchanged.push(spec.name);
    }

    const partitions = metadata.topics.find((topic) => topic.name === spec.name)?.partitions ?? [];
    const replicas = Math.min(...partitions.map((partition) => partition.replicas.length));
    if (partitions.length !== spec.partitions || replicas !== spec.replicationFactor) {
      const drift: TopicDrift = {
        topic: spec.name,
        partitions: { spec: spec.partitions, actual: partitions.length },
        replicationFactor: { spec: spec.replicationFactor, actual: Number.isFinite(replicas) ? replicas : 0 },
      };
      report.drift.push(drift);
      logger?.warn(drift, "kafka topic differs from its spec in partitions or replication; not changed");
    }
  }
  return report;
}

async function step<T>(what: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw new Error(`migrateTopics: could not ${what}`, { cause: error });
  }
}
