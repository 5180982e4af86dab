export { outputAfterFee } from "./intents/demoRoutes.js";
export { paysFiller } from "./intents/fillerPolicy.js";
export { readKeysFile, type SimulatorKeys } from "./intents/keysFile.js";
export {
  type DemoSettings,
  type IntentsSimulatorOptions,
  type RunningIntentsSimulator,
  startIntentsSimulator,
} from "./intents/startIntentsSimulator.js";
export {
  createPriceFeedMover,
  nextAnswer,
  type PriceFeedMover,
  type PriceFeedMoverOptions,
  type SubmittedRound,
} from "./price/priceFeedMover.js";
export {
  type RunningPriceSimulator,
  type StartPriceSimulatorOptions,
  startPriceSimulator,
} from "./price/startPriceSimulator.js";
export { type NetworkRandom, networkRandom } from "./random.js";
