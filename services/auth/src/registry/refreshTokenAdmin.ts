import { invalidArgument, notFound, unavailable } from "@platform/errors";
import type { Logger } from "@platform/log";
import type {
  ListRefreshTokensRequest,
  ListRefreshTokensResponse,
  RefreshToken,
  RevokeRefreshTokenRequest,
  RevokeRefreshTokenResponse,
} from "@platform/proto/auth/v1/auth";
import type { Redis } from "@platform/store";
import { isWellFormed } from "../credentials/credentialFormat.js";
import { refreshTokenFromHash } from "./apiKeyRecord.js";
import type { EventPublisher } from "./eventPublisher.js";
import { authKeys } from "./keys.js";
import { lookUpApiKey } from "./readRegistry.js";
import type { RegistryStatus } from "./registrySupervisor.js";
import { fromRegistry } from "./storeErrors.js";

/** What logs and the CLI name a refresh token by: the head of its HMAC, which reveals nothing of the token. */
export const refreshTokenId = (tokenHmac: string): string => tokenHmac.slice(0, 16);

export interface RefreshTokenAdminOptions {
  redis: Redis;
  publisher: EventPublisher;
  registry: RegistryStatus;
  log: Logger;
  now?: () => Date;
  /** Longest wait for Kafka to confirm the revocation; 5 s by default. */
  publishTimeoutMs?: number;
}

export interface RefreshTokenAdmin {
  list(request: ListRefreshTokensRequest): Promise<ListRefreshTokensResponse>;
  revoke(request: RevokeRefreshTokenRequest, deadline: number): Promise<RevokeRefreshTokenResponse>;
}

/**
 * One refresh token at a time, for the admin CLI: a key's live tokens are found through its own
 * index (`auth:refresh-of:{keyId}`, no key listing), and a revocation is an event on the refresh
 * tokens' topic (so a rebuild drops the token again) and then the record's removal, at once.
 */
export function refreshTokenAdmin(options: RefreshTokenAdminOptions): RefreshTokenAdmin {
  const { redis, publisher, registry, log } = options;
  const now = options.now ?? (() => new Date());
  const publishTimeoutMs = options.publishTimeoutMs ?? 5_000;

  const tokensOf = async (keyId: string): Promise<RefreshToken[]> => {
    if (!isWellFormed("keyId", keyId)) throw notFound("API_KEY_NOT_FOUND", `no API key ${keyId}`);
    const { value: key, registryPresent } = await lookUpApiKey(redis, keyId);
    if (!registryPresent) registry.poke();
    if (!registryPresent || !registry.complete())
      throw unavailable("UNAVAILABLE", "the key registry is being rebuilt; try again shortly");
    if (key === undefined) throw notFound("API_KEY_NOT_FOUND", `no API key ${keyId}`);
    return fromRegistry(async () => {
      const recordKeys = await redis.zrangebyscore(authKeys.refreshTokensOfKey(keyId), Date.now(), "+inf");
      if (recordKeys.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const recordKey of recordKeys) pipeline.hgetall(recordKey);
      const hashes = (await pipeline.exec()) ?? [];
      return recordKeys.flatMap((recordKey, index) => {
        const record = refreshTokenFromHash((hashes[index]?.[1] ?? {}) as Record<string, string>);
        if (record === undefined) return [];
        const tokenHmac = recordKey.slice(authKeys.refreshToken("").length);
        return [
          {
            id: refreshTokenId(tokenHmac),
            tokenHmac,
            keyId: record.keyId,
            secretVersion: record.secretVersion,
            expiresAt: record.expiresAt,
          },
        ];
      });
    });
  };

  return {
    async list(request) {
      return { tokens: await tokensOf(request.keyId) };
    },

    async revoke(request, deadline) {
      const named = request.token.trim().toLowerCase();
      if (!/^(?:[0-9a-f]{16}|[0-9a-f]{64})$/.test(named))
        throw invalidArgument(
          "INVALID_REFRESH_TOKEN_ID",
          "name the refresh token by its id (16 hex digits) or its hash (64)",
        );
      const matches = (await tokensOf(request.keyId)).filter((token) =>
        named.length === 64 ? token.tokenHmac === named : token.id === named,
      );
      const token = matches[0];
      if (token === undefined || matches.length > 1)
        throw notFound(
          "REFRESH_TOKEN_NOT_FOUND",
          matches.length > 1
            ? `several live refresh tokens of ${request.keyId} have the id ${named}: name it by its hash`
            : `no live refresh token ${named} of API key ${request.keyId}`,
        );
      await publisher.publish(
        {
          event: {
            $case: "refreshTokenRevoked",
            value: {
              keyId: token.keyId,
              tokenHmac: token.tokenHmac,
              revokedAt: now().toISOString(),
              reason: request.reason,
            },
          },
        },
        Math.min(Date.now() + publishTimeoutMs, deadline - 250),
      );
      // At once, beside the projection (which does the same when it folds the event).
      await fromRegistry(() =>
        redis
          .multi()
          .del(authKeys.refreshToken(token.tokenHmac))
          .zrem(authKeys.refreshTokensOfKey(token.keyId), authKeys.refreshToken(token.tokenHmac))
          .exec(),
      );
      log.info({ keyId: token.keyId, refreshTokenId: token.id }, "refresh token revoked");
      return { token };
    },
  };
}
