export type { Dependency } from "./changeClock.js";
export { applyChangeSignal, cacheFollowsReadiness, followChangeSignals } from "./changeSignals.js";
export {
  createConditionalReads,
  type ConditionalReads,
  type ConditionalReadsOptions,
  type ConditionalResult,
} from "./conditionalReads.js";
export { conditionalRead, conditionalReadOf, type ConditionalRead } from "./conditionalRoute.js";
export { connectConditionalReads, type ConnectedConditionalReads } from "./connect.js";
