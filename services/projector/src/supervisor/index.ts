export {
  superviseProjection,
  type ProjectionStartOptions,
  type ProjectionSupervisor,
  type ProjectionSupervisorOptions,
  type SupervisedProjection,
} from "./projectionSupervisor.js";
