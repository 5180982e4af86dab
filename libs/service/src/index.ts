export { kafkaDependency, natsDependency, redisDependency, type Dependency } from "./dependencies.js";
export { runBackendService, type BackendServiceSpec, type RunningBackendService } from "./runBackendService.js";
export { serviceVars } from "./serviceVars.js";
