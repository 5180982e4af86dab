export {
  superviseProjection,
  type ProjectionStartOptions,
  type ProjectionSupervisor,
  type ProjectionSupervisorOptions,
  type SupervisedProjection,
} from "./projectionSupervisor.js";
export {
  advanceToRef,
  asOfAgeSeconds,
  readModelMetrics,
  throttled,
  type ReadModelMetrics,
} from "./readModelMetrics.js";
