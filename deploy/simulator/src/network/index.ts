export { networkTestAccounts, networkTestKey } from "./accounts.js";
export {
  createNetworkContext,
  type NetworkContext,
  type NetworkSimulatorOptions,
  type SimulatedSubnet,
} from "./context.js";
export { addToTotalIssuance, readTotalIssuance } from "./issuance.js";
export { networkRandom, type NetworkRandom } from "./random.js";
export { sendTransfers, type SendTransfersOptions } from "./sendTransfers.js";
export { simulateNetworkStep, type NetworkStepResult } from "./step.js";
export {
  startNetworkSimulator,
  type RunningNetworkSimulator,
  type StartNetworkSimulatorOptions,
} from "./startNetworkSimulator.js";
