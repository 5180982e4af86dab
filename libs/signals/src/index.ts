export { connectSignals, type ConnectSignalsOptions, type Signals } from "./connectSignals.js";
export { subjects } from "./subjects.js";
export { NATS_PERMISSIONS, NATS_USERS, natsAuthorization, type NatsGrant, type NatsUser } from "./natsPermissions.js";
