import { randomBytes } from "node:crypto";
import { createLogger } from "@platform/log";
import type { PublishedEvent } from "@platform/service";
import type { Redis } from "@platform/store";
import { newCredential } from "../credentials/credentialFormat.js";
import { type Pepper, pepperFrom } from "../credentials/pepper.js";
import { apiKeyToHash } from "../registry/apiKeyRecord.js";
import type { EventPublisher } from "../registry/eventPublisher.js";
import { authKeys } from "../registry/keys.js";
import { generateSigningKeyFile, parseSigningKeyFile } from "../tokens/signingKeyFile.js";
import type { SigningKeyStore } from "../tokens/signingKeyStore.js";
import { type TokenIssuer, tokenIssuer } from "./issueToken.js";
import { redisLockout } from "./lockout.js";
import type { LockoutPolicy } from "./lockoutPolicy.js";
import { refreshTokenUses } from "./refreshTokenUse.js";

/*
 * IssueToken in process over a real Redis, without Kafka or gRPC: for the tests and the bench
 * (bench/auth/loginUnderFailures.ts) that look at the credential check and its lockout alone.
 * The pepper and the signing key are made here, at run time.
 */

export interface IssuerUnderTest {
  issue: TokenIssuer;
  pepper: Pepper;
  /** Writes an active key into the registry (and marks it complete); returns its id and secret. */
  addKey(): Promise<{ id: string; secret: string }>;
}

export function issuerUnderTest(redis: Redis, policy: LockoutPolicy): IssuerUnderTest {
  const pepper = pepperFrom(randomBytes(48));
  const signingKey = parseSigningKeyFile(JSON.stringify(generateSigningKeyFile(new Date(Date.now() - 1_000))));
  const signingKeys: SigningKeyStore = {
    signingKey: () => signingKey,
    keys: () => [signingKey],
    reload: () => undefined,
    stop: () => undefined,
  };
  // Kafka is not under test: an issued refresh token is taken as published.
  const publisher: EventPublisher = {
    publish: async () => ({}) as PublishedEvent,
    connected: () => true,
    close: async () => undefined,
  };
  const issue = tokenIssuer({
    redis,
    publisher,
    pepper,
    signingKeys,
    lockout: redisLockout(redis, policy),
    registry: { complete: () => true, poke: () => undefined },
    accessToken: { issuer: "test", audience: "test", ttlSeconds: 900 },
    refreshTokenTtlSeconds: 3_600,
    refreshTokensPerKey: 5,
    grantsPerKeyPerMinute: 1_000_000,
    refreshTokenUses: refreshTokenUses({
      redis,
      pepper,
      log: createLogger({ service: "issuer-test", level: "silent" }),
    }),
  });
  return {
    issue,
    pepper,
    async addKey() {
      const id = newCredential("keyId");
      const secret = newCredential("secret");
      const record = {
        id,
        name: "test",
        scopes: ["data:read"],
        tier: "standard",
        kind: "server" as const,
        allowedOrigins: [],
        status: "active" as const,
        secretHmac: pepper.hmac(secret),
        pepperId: pepper.id,
        secretVersion: 1,
        createdAt: new Date().toISOString(),
      };
      await redis.multi().hset(authKeys.apiKey(id), apiKeyToHash(record)).set(authKeys.marker, "complete").exec();
      return { id, secret };
    },
  };
}
