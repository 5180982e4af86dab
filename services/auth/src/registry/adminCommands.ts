import { AppError, unavailable } from "@platform/errors";
import type { Logger } from "@platform/log";
import type {
  CreateApiKeyRequest,
  CreateApiKeyResponse,
  ListApiKeysRequest,
  ListApiKeysResponse,
  RevokeApiKeyRequest,
  RevokeApiKeyResponse,
  RotateApiKeySecretRequest,
  RotateApiKeySecretResponse,
} from "@platform/proto/auth/v1/auth";
import { TOPICS } from "@platform/proto/topics";
import { awaitStoredOffset, type Redis } from "@platform/store";
import { isWellFormed, newCredential } from "../credentials/credentialFormat.js";
import type { Pepper } from "../credentials/pepper.js";
import { type ApiKeyRecord, apiKeyToProto } from "./apiKeyRecord.js";
import { type CreateRules, type Decision, decideCreate, decideRevoke, decideRotate } from "./decide.js";
import type { EventPublisher } from "./eventPublisher.js";
import { evolve } from "./evolve.js";
import { secretKindOf } from "./keyKinds.js";
import { authKeys } from "./keys.js";
import { listApiKeys, lookUpApiKey, readApiKey } from "./readRegistry.js";
import type { RegistryStatus } from "./registrySupervisor.js";

export interface AdminCommandsOptions {
  redis: Redis;
  publisher: EventPublisher;
  pepper: Pepper;
  rules: CreateRules;
  registry: RegistryStatus;
  log: Logger;
  now?: () => Date;
  /** Longest wait for Kafka to confirm an event; 5 s by default. */
  publishTimeoutMs?: number;
  /** Longest wait for the projection to show the change (read-your-writes); 5 s by default. */
  projectionTimeoutMs?: number;
}

export interface AdminCommands {
  create(request: CreateApiKeyRequest, deadline: number): Promise<CreateApiKeyResponse>;
  list(request: ListApiKeysRequest): Promise<ListApiKeysResponse>;
  revoke(request: RevokeApiKeyRequest, deadline: number): Promise<RevokeApiKeyResponse>;
  rotate(request: RotateApiKeySecretRequest, deadline: number): Promise<RotateApiKeySecretResponse>;
}

/**
 * The admin CLI's commands. Kafka is the truth: each command decides on the registry's current
 * record, publishes the event, then waits (bounded) until the projection applied it, so the next
 * command or POST /auth sees the change. Secrets are generated here, returned once, and only
 * their peppered HMAC goes into the event.
 */
export function adminCommands(options: AdminCommandsOptions): AdminCommands {
  const { redis, publisher, pepper, rules, registry, log } = options;
  const now = options.now ?? (() => new Date());
  const publishTimeoutMs = options.publishTimeoutMs ?? 5_000;
  const projectionTimeoutMs = options.projectionTimeoutMs ?? 5_000;

  /** Publishes the decided event and answers with the key as the registry now has it. */
  const commit = async (
    decision: Decision,
    keyId: string,
    current: ApiKeyRecord | undefined,
    deadline: number,
  ): Promise<ApiKeyRecord> => {
    if (decision instanceof AppError) throw decision;
    const started = Date.now();
    // Leave the caller time to hear the answer: a reply after its deadline is lost.
    const published = await publisher.publish(decision, Math.min(started + publishTimeoutMs, deadline - 250));
    const projected = await awaitStoredOffset(
      redis,
      authKeys.offset(TOPICS.authApiKeys.name, published.partition),
      published.offset,
      Math.min(Date.now() + projectionTimeoutMs, deadline - 250),
    );
    if (!projected)
      log.warn({ keyId, partition: published.partition }, "the key registry has not applied the change yet; it will");
    const fresh = projected ? await readApiKey(redis, keyId).catch(() => undefined) : undefined;
    const record = fresh ?? evolve(current, decision);
    if (record === undefined) throw new Error(`no record for key ${keyId} after its event`);
    return record;
  };

  /** Decisions on an incomplete registry could answer NOT_FOUND for a key that exists. */
  const requireCompleteRegistry = (registryPresent = true): void => {
    if (!registryPresent) registry.poke();
    if (!registryPresent || !registry.complete())
      throw unavailable("UNAVAILABLE", "the key registry is being rebuilt; try again shortly");
  };

  const currentOf = async (keyId: string): Promise<ApiKeyRecord | undefined> => {
    if (!isWellFormed("keyId", keyId)) return undefined;
    const { value, registryPresent } = await lookUpApiKey(redis, keyId);
    requireCompleteRegistry(registryPresent);
    return value;
  };

  return {
    async create(request, deadline) {
      const keyId = newCredential("keyId");
      // An unknown kind gets a server secret here and is refused by decideCreate.
      const secret = newCredential(secretKindOf(request.kind === "browser" ? "browser" : "server"));
      const current = await readApiKey(redis, keyId);
      const decision = decideCreate(
        {
          keyId,
          name: request.name,
          scopes: request.scopes,
          tier: request.tier,
          kind: request.kind,
          allowedOrigins: request.allowedOrigins,
          secretHmac: pepper.hmac(secret),
          pepperId: pepper.id,
          now: now(),
        },
        current,
        rules,
      );
      const record = await commit(decision, keyId, current, deadline);
      log.info(
        {
          keyId,
          name: record.name,
          scopes: record.scopes,
          tier: record.tier,
          kind: record.kind,
          allowedOrigins: record.allowedOrigins,
        },
        "api key created",
      );
      return { key: apiKeyToProto(record), secret };
    },

    async list(request) {
      requireCompleteRegistry();
      const records = await listApiKeys(redis);
      return {
        keys: records.filter((record) => request.includeRevoked || record.status === "active").map(apiKeyToProto),
      };
    },

    async revoke(request, deadline) {
      const current = await currentOf(request.id);
      const decision: Decision = decideRevoke({ keyId: request.id, reason: request.reason, now: now() }, current);
      const record = await commit(decision, request.id, current, deadline);
      log.info({ keyId: request.id }, "api key revoked");
      return { key: apiKeyToProto(record) };
    },

    async rotate(request, deadline) {
      const current = await currentOf(request.id);
      // A browser key's new secret is publishable again (pk_).
      const secret = newCredential(secretKindOf(current?.kind ?? "server"));
      const decision: Decision = decideRotate(
        { keyId: request.id, secretHmac: pepper.hmac(secret), pepperId: pepper.id, now: now() },
        current,
      );
      const record = await commit(decision, request.id, current, deadline);
      log.info({ keyId: request.id, secretVersion: record.secretVersion }, "api key secret rotated");
      return { key: apiKeyToProto(record), secret };
    },
  };
}
