export { connectSignals, type ConnectSignalsOptions, type Signals } from "./connectSignals.js";
export { subjects } from "./subjects.js";
