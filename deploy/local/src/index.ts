export {
  readDescriptor,
  redisAdminUrl,
  writeDescriptor,
  type ChainDescriptor,
  type InfrastructureDescriptor,
  type ProcessDescriptor,
  type StackDescriptor,
  type SubstrateDescriptor,
} from "./descriptor.js";
export { repoRoot } from "./paths.js";
export { configuredPorts, DEFAULT_PORTS, freePorts, portVariable, type PortPlan } from "./ports.js";
export { consoleProgress, silentProgress, type Progress } from "./progress.js";
export { testRuntime } from "./testRuntime.js";
export {
  SERVICE_ORDER,
  NODE_FLAGS,
  serviceCommand,
  serviceProcessSpecs,
  type ServiceName,
  type ServiceProcessSpec,
  type ServiceRuntime,
} from "./serviceProcesses.js";
export { startStack, type ExternalInfrastructure, type RunningStack, type StartStackOptions } from "./startStack.js";
export { authCli } from "./authCli.js";
export { DEMO_SCOPES, prepareSecrets, seedDemoKey, type DemoKey } from "./secrets.js";
export { serviceCredentialEnv } from "./serverUsers.js";
export {
  observabilityFromEnv,
  observabilityIntervals,
  prometheusConfig,
  RULE_FILES,
  startPrometheus,
  withEvaluationInterval,
  type ObservabilityOptions,
  type RuleVariant,
} from "./prometheus.js";
export { simulatorCommand, simulatorKeysFile, simulatorProcessSpec, writeSimulatorKeys } from "./simulatorProcess.js";
