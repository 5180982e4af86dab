export {
  startIntentsSimulator,
  type DemoSettings,
  type IntentsSimulatorOptions,
  type RunningIntentsSimulator,
} from "./startIntentsSimulator.js";
export { paysFiller } from "./fillerPolicy.js";
export { outputAfterFee } from "./demoRoutes.js";
