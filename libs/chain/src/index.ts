export {
  addressSchema,
  type ChainConfig,
  type ChainConfigInput,
  type ChainContracts,
  type ChainRole,
  type ConfiguredChain,
  type ConfiguredChainInput,
  chainConfigSchema,
  chainContractsSchema,
  chainRoleSchema,
  configuredChainSchema,
  type Finality,
  finalitySchema,
  nativeCurrencySchema,
  rpcSettingsSchema,
  type SubstrateNetwork,
  type SubstrateNetworkInput,
  substrateNetworkSchema,
} from "./chainConfig.js";
export { type ChainClients, createChainClients } from "./createChainClients.js";
export { ChainConfigError, loadChainConfig } from "./loadChainConfig.js";
export {
  createRpcQuota,
  isQuotaExceeded,
  type RpcQuota,
  RpcQuotaExceededError,
  type RpcQuotaLimits,
  withQuota,
} from "./rpcQuota.js";
export { rpcReadiness } from "./rpcReadiness.js";
export { SIWE_MESSAGE_FORM, SIWE_MESSAGE_MAX_LENGTH, SIWE_MESSAGE_PATTERN } from "./siweMessagePattern.js";
export { toViemChain } from "./toViemChain.js";
export { DEFAULT_USER_READS, type UserReadSettings, userReadTransport } from "./userReadTransport.js";
