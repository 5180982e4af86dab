export { createMetricsRegistry } from "./metrics.js";
export { startOpsServer, type OpsServer } from "./opsServer.js";
export {
  watchDependencies,
  type DependencyCheck,
  type DependencyState,
  type Readiness,
  type ReadinessSnapshot,
} from "./readiness.js";
export { exportReadinessMetrics, readReadiness, type ReadinessReading } from "./readinessMetrics.js";
export { handleShutdown, type ShutdownStep } from "./shutdown.js";
