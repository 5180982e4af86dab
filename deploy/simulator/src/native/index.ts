export {
  startNativeSimulator,
  type NativeSimulatorCounts,
  type NativeSimulatorOptions,
  type NativeTick,
  type RunningNativeSimulator,
} from "./nativeSimulator.js";
export {
  NATIVE_SIMULATOR_KINDS,
  planTick,
  type NativeAction,
  type NativeActor,
  type NativeSimulatorKind,
  type PlanContext,
} from "./nativeActions.js";
export { readNativeState, type NativeChainState, type NativePosition, type NativeSubnetState } from "./nativeState.js";
