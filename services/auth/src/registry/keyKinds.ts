import { type AppError, invalidArgument } from "@platform/errors";
import type { CredentialKind } from "../credentials/credentialFormat.js";
import { SCOPES, type Scope } from "./scopes.js";

/*
 * Key kinds. A server key has an `sk_` secret: it must stay on a server. A browser key has a
 * publishable `pk_` secret, meant to be shipped in a web page, and is therefore held to what a
 * published secret may safely do:
 *
 * - read scopes only (a creation with a write scope is refused);
 * - a list of allowed origins: POST /auth answers it only for a request whose `Origin` header is
 *   in the list, and its access tokens carry the list, so the gateway refuses them from any other
 *   Origin (403 ORIGIN_NOT_ALLOWED);
 * - its own, smaller rate budget: the tier `browser` (the gateway's RATE_LIMIT_TIERS).
 *
 * What the origin binding does not do: `Origin` is set by browsers, and a page cannot forge it,
 * but any other HTTP client (curl, a server) can send any Origin it likes. The binding stops
 * another web site from using the key from its visitors' browsers; it does not stop a script
 * that copies the key. That is why the key is limited to reads and to a budget of its own.
 */

export type KeyKind = "server" | "browser";

export const KEY_KINDS: readonly KeyKind[] = ["server", "browser"];

/** The tier of every browser key (AUTH_TIERS must list it for browser keys to be created). */
export const BROWSER_TIER = "browser";

/** Allowed origins per browser key, at most. */
export const MAX_ORIGINS = 20;

/** The secret format of each kind. */
export function secretKindOf(kind: KeyKind): CredentialKind {
  return kind === "browser" ? "publishableSecret" : "secret";
}

export function isReadScope(scope: string): boolean {
  return scope.endsWith(":read");
}

/** What a creation's kind, scopes, tier and origins come to, or why they are refused. */
export interface KindDecision {
  kind: KeyKind;
  tier: string;
  allowedOrigins: string[];
}

export function decideKind(
  command: { kind: string; scopes: readonly string[]; tier: string; allowedOrigins: readonly string[] },
  defaultTier: string,
): KindDecision | AppError {
  const kind = command.kind === "" ? "server" : command.kind;
  if (kind !== "server" && kind !== "browser")
    return invalidArgument("INVALID_KIND", `unknown key kind ${JSON.stringify(kind)}; valid kinds: server, browser`);
  if (kind === "server") {
    if (command.allowedOrigins.length > 0)
      return invalidArgument("INVALID_ORIGIN", "only a browser key (--kind browser) takes allowed origins");
    return { kind, tier: command.tier === "" ? defaultTier : command.tier, allowedOrigins: [] };
  }
  const writes = command.scopes.filter((scope) => !isReadScope(scope));
  if (writes.length > 0) {
    const reads = SCOPES.filter((scope: Scope) => isReadScope(scope));
    return invalidArgument(
      "INVALID_SCOPE",
      `a browser key's secret is published, so it takes read scopes only (${reads.join(", ")}), not ${writes.join(", ")}`,
    );
  }
  if (command.tier !== "" && command.tier !== BROWSER_TIER)
    return invalidArgument("UNKNOWN_TIER", `a browser key has the tier ${BROWSER_TIER}, not ${command.tier}`);
  const origins = allowedOrigins(command.allowedOrigins);
  if (!Array.isArray(origins)) return origins;
  return { kind, tier: BROWSER_TIER, allowedOrigins: origins };
}

/** The origins, checked and deduplicated: 1 to MAX_ORIGINS serialized origins, https (http only for loopback). */
function allowedOrigins(given: readonly string[]): string[] | AppError {
  if (given.length === 0)
    return invalidArgument("INVALID_ORIGIN", "a browser key needs at least one allowed origin (--origin https://…)");
  const origins = [...new Set(given.map((origin) => origin.trim()))];
  if (origins.length > MAX_ORIGINS)
    return invalidArgument("INVALID_ORIGIN", `a browser key takes at most ${MAX_ORIGINS} origins`);
  for (const origin of origins) {
    if (!isSerializedOrigin(origin))
      return invalidArgument(
        "INVALID_ORIGIN",
        `${JSON.stringify(origin)} is not an origin: give scheme://host[:port] as a browser sends it (no path, no wildcard), https except for localhost`,
      );
  }
  return origins;
}

/** `https://host[:port]` as browsers serialize it (lower case, no default port, no path); `http:` for loopback only. */
export function isSerializedOrigin(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.origin !== value) return false;
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
}

/** Whether a request with this Origin header (undefined: none) may use a key of this kind. */
export function originAllowed(
  key: { kind: KeyKind; allowedOrigins: readonly string[] },
  origin: string | undefined,
): boolean {
  if (key.kind === "server") return true;
  return origin !== undefined && key.allowedOrigins.includes(origin);
}
