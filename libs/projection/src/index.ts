export { type CommitReplication, commitReplication, replicationFor } from "./commitReplication.js";
export {
  changesOf,
  type DecodedRecord,
  lowestOffset,
  recordsToApply,
  StoreBehindError,
} from "./decodedRecords.js";
export { defineProjection, type ProjectionDefinition } from "./defineProjection.js";
export { type PostgresStoreOptions, postgresStore } from "./postgresStore.js";
export { type RedisCommitted, type RedisMulti, type RedisStoreOptions, redisStore } from "./redisStore.js";
export type { ProjectionStore } from "./store.js";
