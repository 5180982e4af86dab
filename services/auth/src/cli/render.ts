import { type ApiKey, ApiKeyStatus } from "@platform/proto/auth/v1/auth";

/** A key as the CLI's --json shows it. */
export function keyJson(key: ApiKey): Record<string, unknown> {
  return {
    id: key.id,
    name: key.name,
    scopes: key.scopes,
    tier: key.tier,
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
    ["ID", "STATUS", "TIER", "SCOPES", "CREATED", "NAME"],
    ...keys.map((key) => {
      const json = keyJson(key);
      return [key.id, String(json.status), key.tier, key.scopes.join(","), key.createdAt, key.name];
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
  return `${key.id} "${key.name}" (scopes: ${key.scopes.join(", ")}; tier: ${key.tier})`;
}
