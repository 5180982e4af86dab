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
export * from "./oracle/index.js";
export * from "./intents/index.js";
export * from "./wallets/index.js";
export * from "./native/index.js";
