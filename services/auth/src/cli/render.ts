import { type ApiKey, ApiKeyStatus, type RefreshToken } from "@platform/proto/auth/v1/auth";

/** A key as the CLI's --json shows it. */
export function keyJson(key: ApiKey): Record<string, unknown> {
  return {
    id: key.id,
    name: key.name,
    scopes: key.scopes,
    tier: key.tier,
    kind: key.kind === "browser" ? "browser" : "server",
    ...(key.kind === "browser" ? { allowedOrigins: key.allowedOrigins } : {}),
    status: key.status === ApiKeyStatus.API_KEY_STATUS_REVOKED ? "revoked" : "active",
    createdAt: key.createdAt,
    ...(key.revokedAt === undefined ? {} : { revokedAt: key.revokedAt }),
    ...(key.secretRotatedAt === undefined ? {} : { secretRotatedAt: key.secretRotatedAt }),
  };
}

/** `keys list` for people: one aligned row per key. */
export function keyTable(keys: readonly ApiKey[]): string {
  if (keys.length === 0) return "No API keys.";
  const rows = [
    ["ID", "STATUS", "KIND", "TIER", "SCOPES", "CREATED", "NAME"],
    ...keys.map((key) => {
      const json = keyJson(key);
      return [key.id, String(json.status), String(json.kind), key.tier, key.scopes.join(","), key.createdAt, key.name];
    }),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  "),
    )
    .join("\n");
}

export function describeKey(key: ApiKey): string {
  const origins = key.kind === "browser" ? `; browser key for ${key.allowedOrigins.join(", ")}` : "";
  return `${key.id} "${key.name}" (scopes: ${key.scopes.join(", ")}; tier: ${key.tier}${origins})`;
}

/** A refresh token as the CLI shows it: its id and hash, never the token. */
export function refreshTokenJson(token: RefreshToken): Record<string, unknown> {
  return {
    id: token.id,
    hash: token.tokenHmac,
    keyId: token.keyId,
    secretVersion: token.secretVersion,
    expiresAt: token.expiresAt,
  };
}

/** `refresh-tokens list` for people. */
export function refreshTokenTable(tokens: readonly RefreshToken[]): string {
  if (tokens.length === 0) return "No live refresh tokens.";
  return [
    "ID                EXPIRES                   HASH",
    ...tokens.map((token) => `${token.id}  ${token.expiresAt.padEnd(24)}  ${token.tokenHmac}`),
  ].join("\n");
}
