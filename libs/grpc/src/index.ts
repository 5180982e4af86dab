export { answeredByDeadline } from "./answeredByDeadline.js";
export { API_KEY_ID_METADATA, apiKeyIdOf } from "./apiKeyId.js";
export { callDeadline } from "./callDeadline.js";
export { checkedHandler, type UnaryCallHandler } from "./checkedHandler.js";
export { createHealthChecker, type HealthStatus } from "./checkHealth.js";
export { callUnary, createGrpcClient, type GrpcClientOptions } from "./createClient.js";
export { createKeyConcurrency, type KeyConcurrency } from "./keyConcurrency.js";
export {
  type GrpcServiceRegistration,
  type RunningGrpcServer,
  type StartGrpcServerOptions,
  startGrpcServer,
} from "./startGrpcServer.js";
export { safeGrpcError, unaryHandler } from "./unaryHandler.js";
