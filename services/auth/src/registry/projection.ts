import type { ProjectionBatch } from "@platform/bus";
import type { Logger } from "@platform/log";
import { ApiKeyEvent, type RefreshTokenRevoked } from "@platform/proto/events/v1/auth_api_keys";
import { commitAtOffset, type Redis } from "@platform/store";
import { type ApiKeyRecord, apiKeyFromHash, apiKeyToHash, type RefreshTokenRecord } from "./apiKeyRecord.js";
import { evolve, keyIdOf } from "./evolve.js";
import { authKeys } from "./keys.js";
import { defineRefreshTokenWrite, queueRefreshTokenWrite } from "./refreshTokenWrite.js";

export interface RegistryProjection {
  loadOffsets(topic: string, partition: number): Promise<string | undefined>;
  handleBatch(batch: ProjectionBatch): Promise<void>;
}

/**
 * Folds `auth.api-keys.v1` into the Redis registry (registry/keys.ts), exactly once per record:
 * each batch's record changes and the partition's offset commit together (libs/store
 * commitAtOffset). `redis` must be a connection of its own (WATCH belongs to the connection).
 */
export function registryProjection(
  redis: Redis,
  log: Logger,
  options: { refreshTokensPerKey: number; now?: () => number },
): RegistryProjection {
  const now = options.now ?? Date.now;
  defineRefreshTokenWrite(redis);
  return {
    async loadOffsets(topic, partition) {
      return (await redis.get(authKeys.offset(topic, partition))) ?? undefined;
    },

    async handleBatch(batch) {
      const events = decodeAll(batch, log);
      const keyIds = [...new Set(events.filter((event) => !isRefreshTokenEvent(event)).map(keyIdOf))].filter(
        (keyId): keyId is string => keyId !== undefined && keyId !== "",
      );
      const step = {
        offsetKey: authKeys.offset(batch.topic, batch.partition),
        previousOffset: batch.previousOffset,
        lastOffset: batch.lastOffset,
        partition: `${batch.topic}/${batch.partition}`,
      };
      await commitAtOffset(
        redis,
        step,
        async (multi) => {
          const before = await readRecords(redis, keyIds);
          const after = new Map(before);
          // In the order of the events: a revocation in the batch of its token's issue comes after it.
          const refreshWrites: (
            | { tokenHmac: string; record: RefreshTokenRecord }
            | { revoked: RefreshTokenRevoked }
          )[] = [];
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
        },
        // A key record read above must not change before the batch's MULTI applies.
        keyIds.map(authKeys.apiKey),
      );
    },
  };
}

function decodeAll(batch: ProjectionBatch, log: Logger): ApiKeyEvent[] {
  const events: ApiKeyEvent[] = [];
  for (const message of batch.messages) {
    if (message.value === null) continue;
    try {
      const payload = ApiKeyEvent.decode(message.value);
      if (payload.event !== undefined) events.push(payload);
      else
        log.error(
          { topic: batch.topic, partition: batch.partition, offset: message.offset },
          "api-key record without an event; skipped",
        );
    } catch (error) {
      // A record that can never be decoded would stop the registry for good if it were retried.
      log.error(
        { err: error, topic: batch.topic, partition: batch.partition, offset: message.offset },
        "undecodable api-key record; skipped",
      );
    }
  }
  return events;
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
