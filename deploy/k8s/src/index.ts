export type { Autoscaling, Deployable, EnvValue, Resources, Role, SecretMount, ServiceName } from "./deployable.js";
export {
  BASE_IMAGE_TAG,
  CHAINS_CONFIG_MAP,
  CHAINS_FILE,
  CHAINS_MOUNT_PATH,
  CONFIG_MAP,
  DATA_QUERY_GROUPS,
  DEPLOYABLES,
  GRPC_PORT,
  grpcTarget,
  HTTP_PORT,
  IMAGE_REGISTRY,
  INGEST_SOURCES,
  INGRESS_CONTROLLER_NAMESPACE,
  imageOf,
  NAMESPACE,
  NODE_OPTIONS,
  OPS_PORT,
  PRE_STOP_SLEEP_SECONDS,
  PROJECTIONS,
  REFERENCED_SECRETS,
  RUN_AS_UID,
  SERVICE_ACCOUNT,
  SERVICES,
  SHUTDOWN_TIMEOUT_MS,
  TERMINATION_GRACE_SECONDS,
  UNCONFIGURED_CIDR,
} from "./deployables.js";
export {
  checkDockerfile,
  checkDockerignore,
  type DockerfileExpectations,
  finalUser,
  type Instruction,
  type ParsedDockerfile,
  parseDockerfile,
  type Stage,
} from "./dockerfile.js";
export { BASE_SETTINGS, generateBase, staleBaseFiles, writeBase } from "./generate.js";
export { KUBECTL, parseManifests, renderKustomization, renderOverlay } from "./kustomize.js";
export {
  autoscalerOf,
  deployableManifests,
  deploymentOf,
  disruptionBudgetOf,
  EXTERNAL_EGRESS,
  type Manifest,
  namespaceManifest,
  networkPolicyOf,
  serviceAccountManifest,
  serviceOf,
  sharedNetworkPolicies,
} from "./manifests.js";
export {
  cidrContains,
  type Endpoint,
  type ExternalEndpoint,
  type LabelSelector,
  NetworkPolicies,
  type NetworkPolicyObject,
  type PodEndpoint,
  selectorMatches,
} from "./netpol.js";
export { BASE_DIR, K8S_DIR, OBSERVABILITY_DIR, OVERLAYS, OVERLAYS_DIR, type OverlayName, REPO_ROOT } from "./paths.js";
export { checkRules, formatProblems } from "./rules/checkRules.js";
export { mountedConfigFile, parseQuantity, resolveEnv } from "./rules/containerConfig.js";
export { parseGrpcTarget } from "./rules/network.js";
export type { RuleOptions, RuleProblem } from "./rules/ruleContext.js";
export { secretLookingValue } from "./rules/secrets.js";
export { KUBERNETES_VERSION, SCHEMA_PACKAGE, type SchemaProblem, StrictSchema } from "./schema.js";
export { PROJECT_RULES, type ValidationReport, validateManifests } from "./validate.js";
