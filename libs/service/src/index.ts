export {
  kafkaDependency,
  natsConnectionOf,
  natsDependency,
  projectionStores,
  redisDependency,
  type Dependency,
  type NatsConnection,
  type ProjectionStores,
} from "./dependencies.js";
export {
  kafkaCredentialsOf,
  kafkaCredentialsOrExit,
  kafkaCredentialVars,
  type KafkaCredentialConfig,
} from "./kafkaCredentials.js";
export { lazyEventPublisher, type KeyedEventPublisher, type PublishedEvent } from "./eventPublisher.js";
export { fromStore } from "./storeCalls.js";
export { runBackendService, type BackendServiceSpec, type RunningBackendService } from "./runBackendService.js";
export { serviceVars } from "./serviceVars.js";
export { resumePosition, streamChanges, type StreamChangesOptions } from "./streamChanges.js";
