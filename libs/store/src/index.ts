export { createRedis, redisReadiness, type CreateRedisOptions, type Redis } from "./createRedis.js";
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
