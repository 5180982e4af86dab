export { chainTopicVars, kafkaTopicVars } from "./chainTopicVars.js";
export {
  type Dependency,
  historyDependency,
  kafkaDependency,
  type NatsConnection,
  natsConnectionOf,
  natsDependency,
  type PostgresConfig,
  type ProjectionStores,
  projectionStores,
  redisDependency,
} from "./dependencies.js";
export { type KeyedEventPublisher, lazyEventPublisher, type PublishedEvent } from "./eventPublisher.js";
export {
  type KafkaCredentialConfig,
  kafkaCredentialsOf,
  kafkaCredentialsOrExit,
  kafkaCredentialVars,
  kafkaTlsOf,
} from "./kafkaCredentials.js";
export { type BackendServiceSpec, type RunningBackendService, runBackendService } from "./runBackendService.js";
export { serviceVars } from "./serviceVars.js";
export { type SharedKeyConcurrency, sharedKeyConcurrency } from "./sharedKeyConcurrency.js";
export { fromStore } from "./storeCalls.js";
export { resumePosition, type StreamChangesOptions, streamChanges } from "./streamChanges.js";
