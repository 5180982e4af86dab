export {
  createRedis,
  redisConnectionOf,
  redisReadiness,
  type CreateRedisOptions,
  type Redis,
  type RedisConnection,
} from "./createRedis.js";
export { REDIS_ACL, REDIS_USERS, redisAclFile, redisAclRules, type RedisGrant, type RedisUser } from "./redisAcl.js";
export {
  readVersioned,
  versionedCommit,
  type EntityGroup,
  type EntityRead,
  type EntityValue,
  type VersionedCommitInput,
  type VersionedCommitResult,
  type VersionedOp,
  type VersionedRead,
} from "./versionedCommit.js";
export { projectionsComplete, redisProjectionMarker } from "./projectionMarker.js";
export { coalesceWrites } from "./coalesceWrites.js";
export { traceRedisCommands } from "./redisTracing.js";
export { awaitStoredOffset, commitAtOffset, type OffsetStep } from "./offsetCommit.js";
export {
  createChangeFeed,
  idAfter,
  type ChangeEntry,
  type ChangeFeed,
  type ChangeFeedOptions,
  type ChangeWatch,
  type WatchOptions,
} from "./changeFeed.js";
