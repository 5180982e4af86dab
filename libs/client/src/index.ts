export type { AppAccessToken, GetAccessToken } from "./appTokens.js";
export {
  type AllowanceQuery,
  type ApprovalChoice,
  buildOpenCalls,
  type Call,
  OpenCallsError,
  type OpenCallsInput,
  type OpenCallsOptions,
  type OpenCallsProblem,
  openCalls,
  type QuoteForCalls,
  type ReadAllowance,
} from "./calls.js";
export {
  type ApiClient,
  type CallInit,
  type ClientOptions,
  createClient,
  type GetPath,
  type ItemOf,
  type KnownListPath,
  type KnownPath,
  type ListPath,
  type PathsWith,
  type PostPath,
  type ResponseBody,
} from "./client.js";
export { ClientError } from "./clientError.js";
export {
  chainOf,
  DeploymentDataError,
  deployments,
  findRoute,
  type KnownEnvironment,
  parseDeployment,
  type ResolvedRoute,
  type RouteQuery,
  resolveRoutes,
} from "./deployments.js";
export {
  DEPLOYMENT_SCHEMA_VERSION,
  type Deployment,
  type DeploymentChain,
  type DeploymentRoute,
  type DeploymentToken,
  deploymentJsonSchema,
} from "./deploymentsSchema.js";
export type {
  ClosedEvent,
  ControlEvent,
  DataStreamEvent,
  DataTopic,
  DroppedEvent,
  EventStreamOptions,
  IntentsStreamEvent,
  ReconnectOptions,
  StreamEvent,
} from "./events.js";
export type { components, operations, paths } from "./generated/schema.js";
export { DeploymentSourceError, type LoadDeploymentOptions, loadDeployment } from "./loadDeployment.js";
export type { HalLink, HalPage } from "./pages.js";
export {
  type DocumentedProblemCode,
  isProblem,
  type Problem,
  type ProblemCode,
  ProblemError,
  type ProblemFieldError,
} from "./problem.js";
export type { ApiKeyCredentials, RefreshTokenCredentials } from "./tokens.js";
export type { RetryOptions } from "./transport.js";
