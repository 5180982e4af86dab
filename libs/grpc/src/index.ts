export { callUnary, createGrpcClient, type GrpcClientOptions } from "./createClient.js";
export { createHealthChecker, type HealthStatus } from "./checkHealth.js";
export {
  startGrpcServer,
  type GrpcServiceRegistration,
  type RunningGrpcServer,
  type StartGrpcServerOptions,
} from "./startGrpcServer.js";
export { callDeadline } from "./callDeadline.js";
export { safeGrpcError, unaryHandler } from "./unaryHandler.js";
export { checkedHandler, type UnaryCallHandler } from "./checkedHandler.js";
export { API_KEY_ID_METADATA, apiKeyIdOf } from "./apiKeyId.js";
export { createKeyConcurrency, type KeyConcurrency } from "./keyConcurrency.js";
