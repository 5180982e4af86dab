export {
  type ChangeEntry,
  type ChangeFeed,
  type ChangeFeedOptions,
  type ChangeWatch,
  createChangeFeed,
  idAfter,
  type WatchOptions,
} from "./changeFeed.js";
export { coalesceWrites } from "./coalesceWrites.js";
export {
  type CreateRedisOptions,
  createRedis,
  forEachNode,
  type Redis,
  type RedisConnection,
  type RedisMode,
  type RedisNode,
  type RedisReadFrom,
  redisConnectionOf,
  redisReadiness,
} from "./createRedis.js";
export { execPipeline } from "./execPipeline.js";
export { redisKeySlot, sharedKeySlot } from "./keySlot.js";
export { awaitStoredOffset } from "./offsetCommit.js";
export { projectionsComplete, redisProjectionMarker } from "./projectionMarker.js";
export {
  exactKeyPattern,
  REDIS_COMMANDS,
  type RedisGrant,
  type RedisUserEntry,
  redisAclFile,
  redisAclRules,
} from "./redisAcl.js";
export { traceRedisCommands } from "./redisTracing.js";
export { type ReplicaAck, type ReplicaWait, waitForReplicas } from "./replicaWait.js";
export { unwatch } from "./unwatch.js";
export {
  type EntityGroup,
  type EntityRead,
  type EntityValue,
  readVersioned,
  type VersionedCommitInput,
  type VersionedCommitResult,
  type VersionedOp,
  type VersionedRead,
  versionedCommit,
} from "./versionedCommit.js";
