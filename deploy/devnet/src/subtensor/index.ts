export { deploySubtensor, devnetSimulatorFunds, type DevnetSubtensor } from "./deploySubtensor.js";
export { installPrecompileMocks, precompileMocks, STATE_POINTER_SLOT } from "./precompileMocks.js";
export {
  devnetHolders,
  devnetMiner,
  devnetPriceFeed,
  devnetPublicKey,
  devnetSubnets,
  devnetValidators,
  type ChainIdentity,
  type DevnetHolderSeed,
  type DevnetSubnetSeed,
  type DevnetValidatorSeed,
  type SubnetHyperparameters,
} from "./seed.js";
