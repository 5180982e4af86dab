export { createKafkaClient, defaultRetry, type KafkaClientOptions, type KafkaCredentials } from "./client.js";
export { applyKafkaAcls, type ApplyKafkaAclsOptions } from "./applyKafkaAcls.js";
export {
  aclBindings,
  chainIngestorGrants,
  KAFKA_GRANTS,
  KAFKA_SERVICES,
  mergeGrants,
  platformAclBindings,
  projectorGrants,
  type KafkaAclBinding,
  type KafkaGrant,
  type KafkaService,
} from "./kafkaAcl.js";
export {
  fromKafkaMessage,
  headerNames,
  toKafkaMessage,
  type ConsumedRecord,
  type OutgoingRecord,
} from "./envelope.js";
export { isProducerFencedError, ProducerFencedError } from "./errors.js";
export { kafkaLevelToPino, kafkaLogCreator, kafkaLogLevelFor } from "./logCreator.js";
export {
  migrateTopics,
  type ConfigChange,
  type MigrateTopicsOptions,
  type TopicDrift,
  type TopicMigrationReport,
} from "./migrateTopics.js";
export {
  runProjectionConsumer,
  type ProjectionBatch,
  type ProjectionConsumer,
  type ProjectionConsumerOptions,
} from "./projectionConsumer.js";
export {
  PROJECTION_COMPLETE,
  superviseProjection,
  type ProjectionMarker,
  type ProjectionSupervisor,
  type ProjectionSupervisorOptions,
  type SupervisedProjection,
} from "./projectionSupervisor.js";
export { ensureTopics, type EnsuredTopics } from "./ensureTopics.js";
export { lagSeconds, oldestUnappliedMs, partitionLagRecords, type PartitionLagState } from "./projectionLag.js";
export {
  projectionMetrics,
  type ProjectionMetrics,
  type ProjectionMetricsOptions,
  type ProjectionProgress,
} from "./projectionMetrics.js";
export { createLazyPublisher, type LazyPublisher, type LazyPublisherOptions } from "./lazyPublisher.js";
export { createPublisher, type PublishedBatch, type Publisher, type PublisherOptions } from "./publisher.js";
export { keysForEveryPartition } from "./partitionKeys.js";
export { kafkaReadiness } from "./readiness.js";
export {
  REFRESH_TOKEN_RETENTION_MS,
  defaultPartitions,
  topicCatalog,
  topicNames,
  type TopicCatalogOptions,
  type TopicName,
  type TopicSpec,
} from "./topics.js";
export {
  createTransactionalPublisher,
  type TransactionalPublisher,
  type TransactionalPublisherOptions,
  type TransactionContext,
  type TransactionOffsets,
} from "./transactionalPublisher.js";
export type { Admin, Kafka } from "kafkajs";
