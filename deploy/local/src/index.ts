export { authCli } from "./authCli.js";
export {
  type ChainDescriptor,
  type InfrastructureDescriptor,
  type ProcessDescriptor,
  readDescriptor,
  redisAdminUrl,
  type StackDescriptor,
  type SubstrateDescriptor,
  writeDescriptor,
} from "./descriptor.js";
export {
  chainsOf,
  type FundResult,
  formatUnits,
  fundAccount,
  renderFundResult,
  unitsOf,
} from "./fund.js";
export { type FundArgs, type FundRequest, parseFundArgs } from "./fundArgs.js";
export { FUND_DEFAULTS, FUND_USAGE } from "./fundUsage.js";
export { repoRoot } from "./paths.js";
export { configuredPorts, DEFAULT_PORTS, freePorts, type PortPlan, portVariable } from "./ports.js";
export { consoleProgress, type Progress, silentProgress } from "./progress.js";
export {
  type ObservabilityOptions,
  observabilityFromEnv,
  observabilityIntervals,
  prometheusConfig,
  RULE_FILES,
  type RuleVariant,
  startPrometheus,
  withEvaluationInterval,
} from "./prometheus.js";
export { DEMO_SCOPES, type DemoKey, prepareSecrets, seedDemoKey } from "./secrets.js";
export { serviceCredentialEnv } from "./serverUsers.js";
export {
  NODE_FLAGS,
  SERVICE_ORDER,
  type ServiceName,
  type ServiceProcessSpec,
  type ServiceRuntime,
  serviceCommand,
  serviceProcessSpecs,
} from "./serviceProcesses.js";
export { simulatorCommand, simulatorKeysFile, simulatorProcessSpec, writeSimulatorKeys } from "./simulatorProcess.js";
export { type ExternalInfrastructure, type RunningStack, type StartStackOptions, startStack } from "./startStack.js";
export { testRuntime } from "./testRuntime.js";
