export type { Admin, Kafka } from "kafkajs";
export { type ApplyKafkaAclsOptions, applyKafkaAcls } from "./applyKafkaAcls.js";
export {
  createKafkaClient,
  defaultRetry,
  type KafkaClientOptions,
  type KafkaCredentials,
  type KafkaTls,
} from "./client.js";
export { type EnsuredTopics, ensureTopics } from "./ensureTopics.js";
export {
  type ConsumedRecord,
  fromKafkaMessage,
  headerNames,
  type OutgoingRecord,
  toKafkaMessage,
} from "./envelope.js";
export { isProducerFencedError, ProducerFencedError } from "./errors.js";
export {
  aclBindings,
  chainIngestorGrants,
  INGESTOR_TRANSACTIONAL_ID_PREFIXES,
  type IngestorSourceName,
  ingestorTransactionalId,
  KAFKA_GRANTS,
  KAFKA_SERVICES,
  type KafkaAclBinding,
  type KafkaGrant,
  type KafkaService,
  mergeGrants,
  platformAclBindings,
  projectorGrants,
} from "./kafkaAcl.js";
export { createLazyPublisher, type LazyPublisher, type LazyPublisherOptions } from "./lazyPublisher.js";
export { kafkaLevelToPino, kafkaLogCreator, kafkaLogLevelFor } from "./logCreator.js";
export {
  type ConfigChange,
  type MigrateTopicsOptions,
  migrateTopics,
  type TopicDrift,
  type TopicMigrationReport,
} from "./migrateTopics.js";
export { keysForEveryPartition } from "./partitionKeys.js";
export { migratePlatformTopics } from "./platformTopics.js";
export {
  type ProjectionBatch,
  type ProjectionConsumer,
  type ProjectionConsumerOptions,
  runProjectionConsumer,
} from "./projectionConsumer.js";
export { lagSeconds, oldestUnappliedMs, type PartitionLagState, partitionLagRecords } from "./projectionLag.js";
export {
  type ProjectionMetrics,
  type ProjectionMetricsOptions,
  type ProjectionProgress,
  projectionMetrics,
} from "./projectionMetrics.js";
export {
  PROJECTION_COMPLETE,
  type ProjectionMarker,
  type ProjectionSupervisor,
  type ProjectionSupervisorOptions,
  type SupervisedProjection,
  superviseProjection,
} from "./projectionSupervisor.js";
export { createPublisher, type PublishedBatch, type Publisher, type PublisherOptions } from "./publisher.js";
export { kafkaReadiness } from "./readiness.js";
export { MissingTopicsError, requireTopics } from "./requireTopics.js";
export { DEFAULT_CHAIN_TOPICS_RETENTION_MS, type TopicSpec, type TopicSpecOptions, topicSpecs } from "./topicSpecs.js";
export {
  createTransactionalPublisher,
  type TransactionalPublisher,
  type TransactionalPublisherOptions,
  type TransactionContext,
  type TransactionOffsets,
} from "./transactionalPublisher.js";
