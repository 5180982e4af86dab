export * from "./intents/index.js";
export { readKeysFile, type SimulatorKeys } from "./intents/keysFile.js";
export * from "./network/index.js";
export * from "./price/index.js";
