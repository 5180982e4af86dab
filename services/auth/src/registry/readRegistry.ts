import { execPipeline, type Redis } from "@platform/store";
import { type ApiKeyRecord, apiKeyFromHash, type RefreshTokenRecord, refreshTokenFromHash } from "./apiKeyRecord.js";
import { authKeys } from "./keys.js";
import { writeCappedRefreshToken } from "./refreshTokenWrite.js";
import { fromRegistry } from "./storeErrors.js";

/** Reads of the registry projection (registry/keys.ts). Redis failures surface as UNAVAILABLE. */

export function readApiKey(redis: Redis, keyId: string): Promise<ApiKeyRecord | undefined> {
  return fromRegistry(async () => apiKeyFromHash(keyId, await redis.hgetall(authKeys.apiKey(keyId))));
}

/** Every key, oldest first. */
export function listApiKeys(redis: Redis): Promise<ApiKeyRecord[]> {
  return fromRegistry(async () => {
    const ids = await redis.smembers(authKeys.keySet);
    if (ids.length === 0) return [];
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hgetall(authKeys.apiKey(id));
    const results = (await pipeline.exec()) ?? [];
    const records: ApiKeyRecord[] = [];
    ids.forEach((id, index) => {
      const [error, hash] = results[index] ?? [new Error("no reply"), undefined];
      if (error) throw error;
      const record = apiKeyFromHash(id, hash as Record<string, string>);
      if (record) records.push(record);
    });
    return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  });
}

/**
 * Writes a refresh-token record at once, beside the projection, so a token works the moment it
 * is handed out, keeping at most `cap` live tokens for its key (refreshTokenWrite.ts). This and
 * the projection's write of the same record are interchangeable, in either order.
 */
export function writeRefreshToken(
  redis: Redis,
  tokenHmac: string,
  record: RefreshTokenRecord,
  cap: number,
): Promise<void> {
  return fromRegistry(() => writeCappedRefreshToken(redis, tokenHmac, record, cap));
}

/** The last applied offset of a partition of the registry topic, or undefined. */
export function storedOffset(redis: Redis, topic: string, partition: number): Promise<string | undefined> {
  return fromRegistry(async () => (await redis.get(authKeys.offset(topic, partition))) ?? undefined);
}

/** A registry read together with whether the registry itself is there (its marker). */
export interface Lookup<T> {
  value: T | undefined;
  /** False when Redis lost the projection: "not found" then means nothing. */
  registryPresent: boolean;
}

/** The key and the registry marker in one round trip, so every lookup costs the same. */
export function lookUpApiKey(redis: Redis, keyId: string): Promise<Lookup<ApiKeyRecord>> {
  return fromRegistry(async () => {
    const [hash, marker] = await pipelined(redis, (pipeline) =>
      pipeline.hgetall(authKeys.apiKey(keyId)).exists(authKeys.marker),
    );
    return { value: apiKeyFromHash(keyId, hash as Record<string, string>), registryPresent: marker === 1 };
  });
}

export function lookUpRefreshToken(redis: Redis, tokenHmac: string): Promise<Lookup<RefreshTokenRecord>> {
  return fromRegistry(async () => {
    const [hash, marker] = await pipelined(redis, (pipeline) =>
      pipeline.hgetall(authKeys.refreshToken(tokenHmac)).exists(authKeys.marker),
    );
    return { value: refreshTokenFromHash(hash as Record<string, string>), registryPresent: marker === 1 };
  });
}

async function pipelined(
  redis: Redis,
  build: (pipeline: ReturnType<Redis["pipeline"]>) => unknown,
): Promise<unknown[]> {
  const pipeline = redis.pipeline();
  build(pipeline);
  return execPipeline(pipeline);
}
