export {
  addressSchema,
  chainConfigSchema,
  chainContractsSchema,
  chainRoleSchema,
  configuredChainSchema,
  finalitySchema,
  nativeCurrencySchema,
  rpcSettingsSchema,
  substrateNetworkSchema,
  type SubstrateNetwork,
  type SubstrateNetworkInput,
  type ChainConfig,
  type ChainConfigInput,
  type ChainContracts,
  type ChainRole,
  type ConfiguredChain,
  type ConfiguredChainInput,
  type Finality,
} from "./chainConfig.js";
export { ChainConfigError, loadChainConfig } from "./loadChainConfig.js";
export { toViemChain } from "./toViemChain.js";
export { createChainClients, type ChainClients } from "./createChainClients.js";
export { rpcReadiness } from "./rpcReadiness.js";
export { SIWE_MESSAGE_FORM, SIWE_MESSAGE_MAX_LENGTH, SIWE_MESSAGE_PATTERN } from "./siweMessagePattern.js";
export {
  createRpcQuota,
  isQuotaExceeded,
  RpcQuotaExceededError,
  withQuota,
  type RpcQuota,
  type RpcQuotaLimits,
} from "./rpcQuota.js";
export { DEFAULT_USER_READS, userReadTransport, type UserReadSettings } from "./userReadTransport.js";
