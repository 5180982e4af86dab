import { AppError, failedPrecondition, invalidArgument, notFound, unauthenticated } from "@platform/errors";
import type { ApiKeyEvent } from "@platform/proto/events/v1/auth_api_keys";
import type { ApiKeyRecord } from "./apiKeyRecord.js";
import { decideKind } from "./keyKinds.js";
import { isScope, SCOPES } from "./scopes.js";

/*
 * The registry's decisions: a command and the key's current record give the event to publish,
 * or the AppError to answer with. Pure: secrets are already hashed, ids and times are chosen by
 * the caller, so every rule can be tested without Redis or Kafka.
 */

export type Decision = ApiKeyEvent | AppError;

export interface CreateApiKeyCommand {
  keyId: string;
  name: string;
  scopes: readonly string[];
  /** Empty: the configured default tier (for a browser key, `browser`). */
  tier: string;
  /** keyKinds.ts: "server" (or empty) or "browser". */
  kind: string;
  /** A browser key's allowed origins. */
  allowedOrigins: readonly string[];
  secretHmac: string;
  pepperId: string;
  now: Date;
}

export interface CreateRules {
  tiers: readonly string[];
  defaultTier: string;
}

const MAX_NAME_LENGTH = 100;
const MAX_REASON_LENGTH = 500;
// Control characters would garble `keys list` and log lines.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

export function decideCreate(
  command: CreateApiKeyCommand,
  current: ApiKeyRecord | undefined,
  rules: CreateRules,
): Decision {
  const name = command.name.trim();
  if (name.length === 0 || name.length > MAX_NAME_LENGTH || CONTROL.test(name)) {
    return invalidArgument("INVALID_NAME", `the key name must be 1 to ${MAX_NAME_LENGTH} printable characters`);
  }
  if (command.scopes.length === 0) {
    return invalidArgument("INVALID_SCOPE", `a key needs at least one scope (${SCOPES.join(", ")})`);
  }
  const unknown = command.scopes.filter((scope) => !isScope(scope));
  if (unknown.length > 0) {
    return invalidArgument(
      "INVALID_SCOPE",
      `unknown scope ${JSON.stringify(unknown[0])}; valid scopes: ${SCOPES.join(", ")}`,
    );
  }
  const kind = decideKind(command, rules.defaultTier);
  if (kind instanceof AppError) return kind;
  const tier = kind.tier;
  if (!rules.tiers.includes(tier)) {
    return invalidArgument(
      "UNKNOWN_TIER",
      `unknown tier ${JSON.stringify(tier)}; valid tiers: ${rules.tiers.join(", ")}`,
    );
  }
  // A fresh 128-bit id never collides in practice; refusing keeps a bug from overwriting a key.
  if (current !== undefined) return failedPrecondition("API_KEY_EXISTS", `key ${command.keyId} already exists`);
  return {
    event: {
      $case: "apiKeyCreated",
      value: {
        keyId: command.keyId,
        name,
        // Canonical order and no duplicates, whatever order the admin typed them in.
        scopes: SCOPES.filter((scope) => command.scopes.includes(scope)),
        tier,
        secretHmac: command.secretHmac,
        pepperId: command.pepperId,
        createdAt: command.now.toISOString(),
        // Empty for a server key, as for every key created before kinds.
        kind: kind.kind === "browser" ? "browser" : "",
        allowedOrigins: kind.allowedOrigins,
      },
    },
  };
}

export interface RevokeApiKeyCommand {
  keyId: string;
  reason: string;
  now: Date;
}

export function decideRevoke(command: RevokeApiKeyCommand, current: ApiKeyRecord | undefined): Decision {
  if (current === undefined) return unknownKey(command.keyId);
  if (current.status === "revoked")
    return failedPrecondition("API_KEY_REVOKED", `key ${command.keyId} is already revoked`);
  const reason = command.reason.trim();
  if (reason.length > MAX_REASON_LENGTH || CONTROL.test(reason)) {
    return invalidArgument("INVALID_REASON", `the reason must be at most ${MAX_REASON_LENGTH} printable characters`);
  }
  return {
    event: { $case: "apiKeyRevoked", value: { keyId: command.keyId, revokedAt: command.now.toISOString(), reason } },
  };
}

export interface RotateSecretCommand {
  keyId: string;
  secretHmac: string;
  pepperId: string;
  now: Date;
}

export function decideRotate(command: RotateSecretCommand, current: ApiKeyRecord | undefined): Decision {
  if (current === undefined) return unknownKey(command.keyId);
  if (current.status === "revoked")
    return failedPrecondition("API_KEY_REVOKED", `key ${command.keyId} is revoked; create a new key`);
  return {
    event: {
      $case: "apiKeySecretRotated",
      value: {
        keyId: command.keyId,
        secretHmac: command.secretHmac,
        pepperId: command.pepperId,
        rotatedAt: command.now.toISOString(),
      },
    },
  };
}

export interface IssueRefreshTokenCommand {
  keyId: string;
  tokenHmac: string;
  pepperId: string;
  now: Date;
  ttlSeconds: number;
}

/** The key was authenticated just before; a key revoked in between still gets no token. */
export function decideIssueRefreshToken(
  command: IssueRefreshTokenCommand,
  current: ApiKeyRecord | undefined,
): Decision {
  if (current === undefined || current.status !== "active") return invalidCredentials();
  return {
    event: {
      $case: "refreshTokenIssued",
      value: {
        keyId: command.keyId,
        tokenHmac: command.tokenHmac,
        pepperId: command.pepperId,
        secretVersion: current.secretVersion,
        issuedAt: command.now.toISOString(),
        expiresAt: new Date(command.now.getTime() + command.ttlSeconds * 1_000).toISOString(),
      },
    },
  };
}

function unknownKey(keyId: string): AppError {
  return notFound("API_KEY_NOT_FOUND", `no API key ${keyId}`);
}

/** The one answer for every credential failure, so failures cannot be told apart. */
export function invalidCredentials(): AppError {
  return unauthenticated("INVALID_CREDENTIALS", "the API key id or secret is not valid");
}

/** The one answer for every refresh-token failure. */
export function invalidRefreshToken(): AppError {
  return unauthenticated("INVALID_REFRESH_TOKEN", "the refresh token is not valid for this API key");
}

/**
 * A browser key's credentials (or refresh token) were right, but not the request's Origin. Its
 * own code and a clear detail: the `pk_` secret is public anyway, so telling it apart from a
 * wrong secret gives nothing away, and a developer sees why the page's login fails.
 */
export function keyOriginNotAllowed(origin: string | undefined): AppError {
  return unauthenticated(
    "KEY_ORIGIN_NOT_ALLOWED",
    origin === undefined
      ? "this is a browser key (pk_): it is only accepted from a web page on one of its allowed origins, and this request has no Origin header"
      : `this browser key (pk_) is not allowed from the origin ${JSON.stringify(origin.slice(0, 200))}; its allowed origins are set when the key is created`,
  );
}
