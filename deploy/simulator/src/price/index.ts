export {
  createPriceFeedMover,
  nextAnswer,
  type PriceFeedMover,
  type PriceFeedMoverOptions,
  type SubmittedRound,
} from "./priceFeedMover.js";
export {
  startPriceSimulator,
  type RunningPriceSimulator,
  type StartPriceSimulatorOptions,
} from "./startPriceSimulator.js";
