export {
  startIntentsSimulator,
  type DemoSettings,
  type IntentsSimulatorOptions,
  type RunningIntentsSimulator,
} from "./intents/startIntentsSimulator.js";
export { paysFiller } from "./intents/fillerPolicy.js";
export { outputAfterFee } from "./intents/demoRoutes.js";
export { readKeysFile, type SimulatorKeys } from "./intents/keysFile.js";
export { networkRandom, type NetworkRandom } from "./random.js";
export {
  createPriceFeedMover,
  nextAnswer,
  type PriceFeedMover,
  type PriceFeedMoverOptions,
  type SubmittedRound,
} from "./price/priceFeedMover.js";
export {
  startPriceSimulator,
  type RunningPriceSimulator,
  type StartPriceSimulatorOptions,
} from "./price/startPriceSimulator.js";
