import type { ApiKeyEvent } from "@platform/proto/events/v1/auth_api_keys";
import type { ApiKeyRecord } from "./apiKeyRecord.js";

/**
 * Folds one event into a key's record. Pure and total: an event for a key the registry does not
 * know (other than its creation) leaves it unknown rather than inventing half a record, and a
 * refresh token, issued or revoked, leaves the key as it is (tokens are records of their own).
 */
export function evolve(record: ApiKeyRecord | undefined, payload: ApiKeyEvent): ApiKeyRecord | undefined {
  const event = payload.event;
  switch (event?.$case) {
    case "apiKeyCreated": {
      const created = event.value;
      // A creation starts the record afresh, so replaying the topic over a surviving record
      // (a lost offset) still ends in the same state.
      return {
        id: created.keyId,
        name: created.name,
        scopes: [...created.scopes],
        tier: created.tier,
        // Keys created before kinds carry none: they are server keys.
        kind: created.kind === "browser" ? "browser" : "server",
        allowedOrigins: created.kind === "browser" ? [...created.allowedOrigins] : [],
        status: "active",
        secretHmac: created.secretHmac,
        pepperId: created.pepperId,
        secretVersion: 1,
        createdAt: created.createdAt,
      };
    }
    case "apiKeyRevoked":
      if (record === undefined) return undefined;
      return { ...record, status: "revoked", revokedAt: event.value.revokedAt };
    case "apiKeySecretRotated":
      if (record === undefined) return undefined;
      return {
        ...record,
        secretHmac: event.value.secretHmac,
        pepperId: event.value.pepperId,
        secretVersion: record.secretVersion + 1,
        secretRotatedAt: event.value.rotatedAt,
      };
    case "refreshTokenIssued":
    case "refreshTokenRevoked":
    case undefined:
      return record;
  }
}

/** The key id an event is about (every event carries one). */
export function keyIdOf(payload: ApiKeyEvent): string | undefined {
  return payload.event?.value.keyId;
}
