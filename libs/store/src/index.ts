export { createRedis, redisReadiness, type CreateRedisOptions, type Redis } from "./createRedis.js";
export { readVersioned, versionedCommit, type VersionedCommitInput, type VersionedCommitResult, type VersionedOp, type VersionedRead } from "./versionedCommit.js";
