export { deploySubtensor, devnetSimulatorFunds, type DevnetSubtensor } from "./deploySubtensor.js";
export { installPrecompileMocks, precompileMocks, STATE_POINTER_SLOT } from "./precompileMocks.js";
export { devnetStorageEntries, totalIssuanceEntry, type StorageEntry } from "./storage/index.js";
export {
  devnetHolders,
  devnetMiner,
  devnetNetworkStorage,
  devnetPublicKey,
  devnetSubnets,
  devnetValidators,
  type ChainIdentity,
  type DevnetHolderSeed,
  type DevnetSubnetSeed,
  type DevnetValidatorSeed,
  type SubnetHyperparameters,
  type SubnetIdentity,
} from "./seed.js";
