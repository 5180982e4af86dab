export * from "./intents/index.js";
export { readKeysFile, type SimulatorKeys } from "./intents/keysFile.js";
export { networkRandom, type NetworkRandom } from "./random.js";
export * from "./price/index.js";
