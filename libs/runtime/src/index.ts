export { createMetricsRegistry } from "./metrics.js";
export { type OpsServer, startOpsServer } from "./opsServer.js";
export {
  type DependencyCheck,
  type DependencyState,
  type Readiness,
  type ReadinessSnapshot,
  watchDependencies,
} from "./readiness.js";
export { exportReadinessMetrics, type ReadinessReading, readReadiness } from "./readinessMetrics.js";
export { handleShutdown, type ShutdownStep } from "./shutdown.js";
