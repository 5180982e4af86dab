import { netuidU16 as netuid, returns, viewFunction as view } from "./abiBuilders.js";

/**
 * Subnet precompile (`0x…0803`) views, all keyed by `uint16 netuid` (research data-api §2.4.5). The
 * hyperparameters are raw chain values; burns are rao; `getNetworkRegistrationBlock` is the block the
 * subnet was registered at (Rust only, missing from `subnet.abi`). There is no getter for the subnet's
 * name, symbol, owner or identity on the chain: those live in storage (StorageQuery `0x…0807`).
 */
export const subnetAbi = [
  view("getNetworkRegistrationBlock", [netuid], returns("uint64")),
  view("getServingRateLimit", [netuid], returns("uint64")),
  view("getMinDifficulty", [netuid], returns("uint64")),
  view("getMaxDifficulty", [netuid], returns("uint64")),
  view("getWeightsVersionKey", [netuid], returns("uint64")),
  view("getWeightsSetRateLimit", [netuid], returns("uint64")),
  view("getAdjustmentAlpha", [netuid], returns("uint64")),
  view("getMaxWeightLimit", [netuid], returns("uint16")),
  view("getImmunityPeriod", [netuid], returns("uint16")),
  view("getMinAllowedWeights", [netuid], returns("uint16")),
  view("getKappa", [netuid], returns("uint16")),
  view("getRho", [netuid], returns("uint16")),
  view("getAlphaSigmoidSteepness", [netuid], returns("uint16")),
  view("getActivityCutoff", [netuid], returns("uint16")),
  view("getNetworkRegistrationAllowed", [netuid], returns("bool")),
  view("getNetworkPowRegistrationAllowed", [netuid], returns("bool")),
  view("getCommitRevealWeightsEnabled", [netuid], returns("bool")),
  view("getLiquidAlphaEnabled", [netuid], returns("bool")),
  view("getYuma3Enabled", [netuid], returns("bool")),
  view("getBondsResetEnabled", [netuid], returns("bool")),
  view("getMinBurn", [netuid], returns("uint64")),
  view("getMaxBurn", [netuid], returns("uint64")),
  view("getDifficulty", [netuid], returns("uint64")),
  view("getBondsMovingAverage", [netuid], returns("uint64")),
  view("getCommitRevealWeightsInterval", [netuid], returns("uint64")),
  view("getAlphaValues", [netuid], [
    { name: "", type: "uint16" },
    { name: "", type: "uint16" },
  ]),
] as const;
