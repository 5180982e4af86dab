export {
  deployDevnet,
  type DevnetChainDeployment,
  type DevnetChainTarget,
  type DevnetDeployment,
} from "./deployDevnet.js";
export { deploySteps, type DeployStep, type DevnetContracts } from "./deploySteps.js";
export { deployContract, type DeployContext } from "./deployContract.js";
export * from "./generated/index.js";
