export {
  awaitDeployment,
  type ContractArtefact,
  confirmTransactions,
  type DeployContext,
  deployContract,
  sendDeployment,
} from "./deployContract.js";
export {
  type DevnetAccount,
  type DevnetAccounts,
  type DevnetChainDeployment,
  type DevnetChainTarget,
  type DevnetDeployment,
  deployDevnet,
} from "./deployDevnet.js";
export {
  type ChainStepContext,
  type DeployedChain,
  type DeployStep,
  type DevnetContracts,
  deploySteps,
  devnetNativeFunds,
  devnetSettlerParams,
  devnetTokens,
  type LinkStep,
  linkSteps,
} from "./deploySteps.js";
export {
  type EvmGrant,
  type EvmGrantResult,
  FaucetError,
  type FaucetEvmChain,
  fundEvmAccount,
} from "./faucet/evmFaucet.js";
export { type FaucetAddress, FaucetAddressError, parseFaucetAddress } from "./faucet/faucetAddress.js";
export { fundNativeAccount, type NativeGrantResult } from "./faucet/nativeFaucet.js";
export {
  erc1271WalletAbi,
  erc1271WalletBytecode,
  erc1271WalletDeployedBytecode,
  erc6492WalletFactoryAbi,
  erc6492WalletFactoryBytecode,
  erc6492WalletFactoryDeployedBytecode,
  fullSettlerAbi,
  fullSettlerBytecode,
  fullSettlerDeployedBytecode,
  iDestinationSettlerAbi,
  iOriginSettlerAbi,
  multicall3Abi,
  multicall3Bytecode,
  multicall3DeployedBytecode,
  priceFeedAggregatorMockAbi,
  priceFeedAggregatorMockBytecode,
  priceFeedAggregatorMockDeployedBytecode,
  testTokenAbi,
  testTokenBytecode,
  testTokenDeployedBytecode,
} from "./generated/index.js";
export {
  addressToBytes32,
  bytes32ToAddress,
  computeOrderId,
  decodeOrderData,
  decodeOriginData,
  encodeFillerData,
  encodeOrderData,
  encodeOriginData,
  FULL_ORDER_PARAMS_TYPE,
  type FullOrderData,
  type FullOrderParams,
  NATIVE_TOKEN,
  OrderStatus,
  type OrderStatusName,
  orderDataTypeHash,
  orderStatusName,
  toFullOrderData,
} from "./intents/index.js";
export { ChainSpecChecksumError, SUBTENSOR_CHAIN_SPEC_SHA256, subtensorChainSpec } from "./native/chainSpec.js";
export {
  type EvmTransferCall,
  type EvmTransferRequest,
  evmChainId,
  evmTransferCall,
  nativeEvmChainId,
} from "./native/evmTransfer.js";
export {
  connectNativeChain,
  NATIVE_DEV_ACCOUNT_NAMES,
  type NativeChain,
  type NativeDevAccountName,
  nativeDevPair,
  nativeKeyring,
  nativeStorage,
  nativeTx,
  readNativeInteger,
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
  type BlockProducer,
  headNumber,
  type LandedCall,
  type NativeCall,
  NativeCallError,
  nextHead,
  sendNativeCalls,
} from "./native/nativeSubmit.js";
export {
  type DevChain,
  type RuntimeUpgrade,
  RuntimeUpgradeError,
  type RuntimeUpgradeOptions,
  SECOND_RUNTIME_SHA256,
  type SecondRuntime,
  secondRuntime,
  upgradeRuntime,
} from "./native/runtimeUpgrade.js";
export {
  type CachedSeed,
  type SeededSubtensor,
  type StartSeededSubtensorOptions,
  seededSubtensorCacheFile,
  startSeededSubtensor,
} from "./native/seededSubtensor.js";
export { DEMO_TEMPO, type SeedNativeNetworkOptions, seedNativeNetwork } from "./native/seedNativeNetwork.js";
export {
  NATIVE_ACTIVITY_KINDS,
  type NativeActivity,
  type NativeActivityKind,
  type NativeDemoAccount,
  type NativeSeededSubnet,
  type SeededNativeNetwork,
} from "./native/seedTypes.js";
export { deployPriceFeed, devnetPriceFeed, devnetPriceUpdaterFunds } from "./oracle/deployPriceFeed.js";
export {
  counterfactualWalletSignature,
  ERC6492_MAGIC_SUFFIX,
  predictWalletAddress,
  wrapErc6492Signature,
} from "./wallets/erc6492.js";
