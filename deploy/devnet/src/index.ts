export {
  deployDevnet,
  type DevnetAccount,
  type DevnetAccounts,
  type DevnetChainDeployment,
  type DevnetChainTarget,
  type DevnetDeployment,
} from "./deployDevnet.js";
export {
  deploySteps,
  devnetNativeFunds,
  devnetSettlerParams,
  devnetTokens,
  linkSteps,
  type ChainStepContext,
  type DeployedChain,
  type DeployStep,
  type DevnetContracts,
  type LinkStep,
} from "./deploySteps.js";
export {
  awaitDeployment,
  confirmTransactions,
  deployContract,
  sendDeployment,
  type ContractArtefact,
  type DeployContext,
} from "./deployContract.js";
export * from "./generated/index.js";
export { deployPriceFeed, devnetPriceFeed, devnetPriceUpdaterFunds } from "./oracle/deployPriceFeed.js";
export * from "./intents/index.js";
export * from "./wallets/erc6492.js";
export { SUBTENSOR_CHAIN_SPEC_SHA256, ChainSpecChecksumError, subtensorChainSpec } from "./native/chainSpec.js";
export {
  SECOND_RUNTIME_SHA256,
  RuntimeUpgradeError,
  secondRuntime,
  upgradeRuntime,
  type DevChain,
  type RuntimeUpgrade,
  type RuntimeUpgradeOptions,
  type SecondRuntime,
} from "./native/runtimeUpgrade.js";
export { DEMO_TEMPO, seedNativeNetwork, type SeedNativeNetworkOptions } from "./native/seedNativeNetwork.js";
export {
  NATIVE_ACTIVITY_KINDS,
  type NativeActivity,
  type NativeActivityKind,
  type NativeDemoAccount,
  type NativeSeededSubnet,
  type SeededNativeNetwork,
} from "./native/seedTypes.js";
export {
  connectNativeChain,
  NATIVE_DEV_ACCOUNT_NAMES,
  nativeDevPair,
  nativeKeyring,
  nativeStorage,
  nativeTx,
  readNativeInteger,
  type NativeChain,
  type NativeDevAccountName,
} from "./native/nativeChain.js";
export {
  blockEvents,
  eventName,
  eventsOfExtrinsic,
  extrinsicFailure,
  findEvents,
  type NativeEventRecord,
  type NativeValue,
} from "./native/nativeEvents.js";
export {
  headNumber,
  NativeCallError,
  nextHead,
  sendNativeCalls,
  type BlockProducer,
  type LandedCall,
  type NativeCall,
} from "./native/nativeSubmit.js";
export {
  evmChainId,
  evmTransferCall,
  nativeEvmChainId,
  type EvmTransferCall,
  type EvmTransferRequest,
} from "./native/evmTransfer.js";
