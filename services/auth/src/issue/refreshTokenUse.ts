import type { Logger } from "@platform/log";
import type { Redis } from "@platform/store";
import { Counter, type Registry } from "prom-client";
import type { Pepper } from "../credentials/pepper.js";
import type { RefreshTokenRecord } from "../registry/apiKeyRecord.js";
import { authKeys } from "../registry/keys.js";
import { refreshTokenId } from "../registry/refreshTokenAdmin.js";
import { addressBucket } from "./addressBucket.js";

/**
 * Notices a refresh token used from another address than the one it was issued to or last used
 * from: a token copied off its client shows up as such a use. Each is counted
 * (`auth_refresh_token_new_address_total`) and logged with the key id, the token's id (the head
 * of its HMAC, never the token) and the address, so an operator can revoke that one token
 * (`cli refresh-tokens revoke`). The address is kept in the token's Redis record as a peppered
 * fingerprint of its bucket (an IPv4 address, an IPv6 /64), never in Kafka: a token rebuilt from
 * Kafka has none, and its first use afterwards is recorded without a count.
 */
export interface RefreshTokenUses {
  /** The fingerprint a token issued to `address` is stored with. */
  fingerprint(address: string | undefined): string;
  /** After a successful REFRESH_TOKEN grant. Never fails the grant. */
  used(tokenHmac: string, record: RefreshTokenRecord, address: string | undefined): Promise<void>;
}

// Only on a record that still exists: a HSET after a revocation or expiry would leave a fragment behind.
const SET_SEEN_FROM = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HSET', KEYS[1], 'seenFrom', ARGV[1])
`;

interface WithScript {
  setRefreshTokenSeenFrom(recordKey: string, fingerprint: string): Promise<number>;
}

export function refreshTokenUses(options: {
  redis: Redis;
  pepper: Pepper;
  log: Logger;
  registry?: Registry | undefined;
}): RefreshTokenUses {
  const { redis, pepper, log } = options;
  const commands = redis as Redis & Partial<WithScript>;
  if (typeof commands.setRefreshTokenSeenFrom !== "function")
    redis.defineCommand("setRefreshTokenSeenFrom", { numberOfKeys: 1, lua: SET_SEEN_FROM });
  const scripted = redis as Redis & WithScript;
  const newAddresses =
    options.registry === undefined
      ? undefined
      : ((options.registry.getSingleMetric("auth_refresh_token_new_address_total") as Counter | undefined) ??
        new Counter({
          name: "auth_refresh_token_new_address_total",
          help: "REFRESH_TOKEN grants from another client address (IPv4, IPv6 /64) than the token's last one: a token used off its client shows up here.",
          registers: [options.registry],
        }));
  const fingerprint = (address: string | undefined) =>
    pepper.hmac(`refresh-token-address:${addressBucket(address ?? "none")}`).slice(0, 32);

  return {
    fingerprint,
    async used(tokenHmac, record, address) {
      const seen = fingerprint(address);
      if (record.seenFrom === seen) return;
      if (record.seenFrom !== undefined) {
        newAddresses?.inc();
        log.warn(
          { keyId: record.keyId, refreshTokenId: refreshTokenId(tokenHmac), clientAddress: address },
          "refresh token used from a new address",
        );
      }
      await scripted.setRefreshTokenSeenFrom(authKeys.refreshToken(tokenHmac), seen).catch((error: unknown) => {
        log.warn({ err: error, keyId: record.keyId }, "could not record a refresh token's address");
      });
    },
  };
}
