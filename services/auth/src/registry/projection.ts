import type { SupervisedProjection } from "@platform/bus";
import { DecodeError } from "@platform/errors/base";
import type { Logger } from "@platform/log";
import { defineProjection, redisStore } from "@platform/projection";
import { ApiKeyEvent, type RefreshTokenRevoked } from "@platform/proto/events/v1/auth_api_keys";
import type { Redis } from "@platform/store";
import { type ApiKeyRecord, apiKeyFromHash, apiKeyToHash, type RefreshTokenRecord } from "./apiKeyRecord.js";
import { evolve, keyIdOf } from "./evolve.js";
import { authKeys } from "./keys.js";
import { defineRefreshTokenWrite, queueRefreshTokenWrite } from "./refreshTokenWrite.js";

export type RegistryProjection = SupervisedProjection;

/**
 * Folds `auth.api-keys.v1` into the Redis registry (registry/keys.ts), exactly once per record:
 * each batch's record changes and the partition's offset commit together (libs/projection
 * redisStore). `redis` must be a connection of its own (WATCH belongs to the connection).
 */
export function registryProjection(
  redis: Redis,
  log: Logger,
  options: { refreshTokensPerKey: number; now?: () => number },
): RegistryProjection {
  const now = options.now ?? Date.now;
  defineRefreshTokenWrite(redis);
  const store = redisStore<ApiKeyEvent>({
    redis,
    log,
    offsetKey: authKeys.offset,
    async prepare(events) {
      const keyIds = [...new Set(events.filter((event) => !isRefreshTokenEvent(event)).map(keyIdOf))].filter(
        (keyId): keyId is string => keyId !== undefined && keyId !== "",
      );
      // A key record read here must not change before the batch's MULTI applies.
      if (keyIds.length > 0) await redis.watch(...keyIds.map(authKeys.apiKey));
      const before = await readRecords(redis, keyIds);
      const after = new Map(before);
      // In the order of the events: a revocation in the batch of its token's issue comes after it.
      const refreshWrites: ({ tokenHmac: string; record: RefreshTokenRecord } | { revoked: RefreshTokenRevoked })[] =
        [];
      for (const payload of events) {
        const event = payload.event;
        if (event?.$case === "refreshTokenRevoked") {
          refreshWrites.push({ revoked: event.value });
          continue;
        }
        if (event?.$case === "refreshTokenIssued") {
          const expiresAtMs = Date.parse(event.value.expiresAt);
          // Replaying old tokens must not bring back expired ones (PEXPIREAT in the past deletes).
          if (!Number.isFinite(expiresAtMs) || expiresAtMs <= now()) continue;
          refreshWrites.push({
            tokenHmac: event.value.tokenHmac,
            record: {
              keyId: event.value.keyId,
              secretVersion: event.value.secretVersion,
              expiresAt: event.value.expiresAt,
            },
          });
          continue;
        }
        const keyId = keyIdOf(payload);
        if (keyId === undefined || keyId === "") continue;
        after.set(keyId, evolve(after.get(keyId), payload));
      }
      return (multi) => {
        for (const keyId of keyIds) {
          const record = after.get(keyId);
          if (record === undefined || JSON.stringify(record) === JSON.stringify(before.get(keyId))) continue;
          // DEL first: a field the new record lacks must not survive from an older one.
          multi.del(authKeys.apiKey(keyId));
          multi.hset(authKeys.apiKey(keyId), apiKeyToHash(record));
          multi.sadd(authKeys.keySet, keyId);
        }
        const at = now();
        for (const write of refreshWrites) {
          if ("revoked" in write) {
            const recordKey = authKeys.refreshToken(write.revoked.tokenHmac);
            multi.del(recordKey).zrem(authKeys.refreshTokensOfKey(write.revoked.keyId), recordKey);
          } else queueRefreshTokenWrite(multi, write.tokenHmac, write.record, options.refreshTokensPerKey, at);
        }
      };
    },
  });
  return defineProjection<ApiKeyEvent>({
    name: "auth-registry",
    log,
    // A record that can never be decoded would stop the registry for good if it were retried: the
    // library logs and skips it, as it does one without an event.
    decode: (record) => {
      if (record.value === null) return [];
      const payload = ApiKeyEvent.decode(record.value);
      if (payload.event === undefined) throw new DecodeError("api-key record without an event");
      return [payload];
    },
    stores: [store],
  });
}

async function readRecords(redis: Redis, keyIds: readonly string[]): Promise<Map<string, ApiKeyRecord | undefined>> {
  const records = new Map<string, ApiKeyRecord | undefined>();
  if (keyIds.length === 0) return records;
  const pipeline = redis.pipeline();
  for (const keyId of keyIds) pipeline.hgetall(authKeys.apiKey(keyId));
  const results = (await pipeline.exec()) ?? [];
  keyIds.forEach((keyId, index) => {
    const [error, hash] = results[index] ?? [new Error("no reply"), undefined];
    if (error) throw error;
    records.set(keyId, apiKeyFromHash(keyId, hash as Record<string, string>));
  });
  return records;
}

/** Refresh-token events are records of their own: they neither read nor change a key's record. */
function isRefreshTokenEvent(event: ApiKeyEvent): boolean {
  const $case = event.event?.$case;
  return $case === "refreshTokenIssued" || $case === "refreshTokenRevoked";
}
