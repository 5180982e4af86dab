export { SUBTENSOR_CHAIN_SPEC_SHA256, ChainSpecChecksumError, subtensorChainSpec } from "./chainSpec.js";
export {
  SECOND_RUNTIME_SHA256,
  RuntimeUpgradeError,
  secondRuntime,
  upgradeRuntime,
  type DevChain,
  type RuntimeUpgrade,
  type RuntimeUpgradeOptions,
  type SecondRuntime,
} from "./runtimeUpgrade.js";
export { DEMO_TEMPO, seedNativeNetwork, type SeedNativeNetworkOptions } from "./seedNativeNetwork.js";
export {
  NATIVE_ACTIVITY_KINDS,
  type NativeActivity,
  type NativeActivityKind,
  type NativeDemoAccount,
  type NativeSeededSubnet,
  type SeededNativeNetwork,
} from "./seedTypes.js";
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
} from "./nativeChain.js";
export {
  blockEvents,
  eventName,
  eventsOfExtrinsic,
  extrinsicFailure,
  findEvents,
  type NativeEventRecord,
  type NativeValue,
} from "./nativeEvents.js";
export {
  headNumber,
  NativeCallError,
  nextHead,
  sendNativeCalls,
  type BlockProducer,
  type LandedCall,
  type NativeCall,
} from "./nativeSubmit.js";
export {
  evmChainId,
  evmTransferCall,
  nativeEvmChainId,
  type EvmTransferCall,
  type EvmTransferRequest,
} from "./evmTransfer.js";
