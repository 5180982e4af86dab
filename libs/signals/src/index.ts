export { type ConnectSignalsOptions, connectSignals, type Signals } from "./connectSignals.js";
export { type NatsGrant, type NatsUserEntry, natsAuthorization } from "./natsPermissions.js";
export {
  type ChangedProjection,
  decodeReadModelChange,
  followReadModelChanges,
  publishReadModelChange,
  type ReadModelChange,
  type ReceivedChange,
} from "./readModelChanges.js";
export { subjects } from "./subjects.js";
