import { stdSerializers } from "pino";

/**
 * Keys whose values pino never prints, at any depth up to `MAX_DEPTH`, whatever their case.
 * Secrets, tokens and signatures must never reach a log line, even when a whole request body or
 * config object is logged by mistake.
 */
export const SENSITIVE_KEYS = [
  "password",
  // The services' own Redis and NATS credentials, should a config object be logged.
  "REDIS_PASSWORD",
  "NATS_PASSWORD",
  "secret",
  "token",
  "access_token",
  "refresh_token",
  "accessToken",
  "refreshToken",
  "authorization",
  "signature",
  "privateKey",
  "private_key",
  "pepper",
  "apiKeySecret",
  "cookie",
] as const;

export const CENSOR = "[redacted]";

/**
 * Exact paths for pino's own `redact`, which also covers a child logger's bindings (pino runs no
 * formatter over those): each key at the top, and under `headers` and `req.headers`. Exact paths
 * cost next to nothing; the wildcard ones are what `redactLine` replaces.
 */
export const exactRedactPaths: string[] = [
  ...new Set(SENSITIVE_KEYS.flatMap((key) => [key, key.toLowerCase()])),
].flatMap((key) => [key, `headers.${key}`, `req.headers.${key}`]);

const SENSITIVE = new Set<string>(SENSITIVE_KEYS.map((key) => key.toLowerCase()));
/** A line's own fields are depth 1: `req.headers.authorization` is depth 3, one more for margin. */
const MAX_DEPTH = 4;
const UNCHANGED = Symbol("unchanged");

/**
 * The line with every sensitive key's value censored, copied only along the paths that hold one:
 * a line without secrets (nearly all of them) is returned as it is, having cost one look-up per key.
 *
 * Written by hand rather than with wildcard paths in pino's `redact` option (`*.token`,
 * `*.*.token`, for each key): with pino 10.4 (@pinojs/redact 0.4) they cost more per access line
 * than the rest of a request answered from memory (`libs/log/bench/redactCost.ts` measures both).
 * The gateway writes that line for every request at info level.
 */
export function redactLine<T extends object>(line: T): T {
  const copy = redacted(line, 1);
  return copy === UNCHANGED ? line : (copy as T);
}

function redacted(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null || depth > MAX_DEPTH) return UNCHANGED;
  if (ArrayBuffer.isView(value) || value instanceof Date) return UNCHANGED;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const next = redacted(value[index], depth + 1);
      if (next === UNCHANGED) continue;
      copy ??= value.slice();
      copy[index] = next;
    }
    return copy ?? UNCHANGED;
  }
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const next = SENSITIVE.has(key.toLowerCase())
      ? CENSOR
      : redacted((value as Record<string, unknown>)[key], depth + 1);
    if (next === UNCHANGED) continue;
    // An error is copied as its serializer would print it (type, message, stack, own fields).
    copy ??= value instanceof Error ? serializeError(value) : { ...value };
    copy[key] = next;
  }
  return copy ?? UNCHANGED;
}

/** An error as pino prints it, its message and stack scrubbed of credentials; anything else as it is. */
export function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return error as Record<string, unknown>;
  const serialized = stdSerializers.err(error);
  serialized.message = scrubText(serialized.message);
  if (serialized.stack) serialized.stack = scrubText(serialized.stack);
  return serialized as unknown as Record<string, unknown>;
}

const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]+/g;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
const LONG_HEX = /\b0x[0-9a-fA-F]{128,}\b/g;
/** The password of a URL's user part (`redis://user:password@host`). */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/]*:)[^\s@/]+@/gi;

/** Scrubs free text (error messages, URLs) of bearer tokens, JWTs, signature-length hex and URL passwords. */
export function scrubText(text: string): string {
  return text
    .replace(BEARER, "$1[redacted]")
    .replace(JWT, "[redacted-jwt]")
    .replace(LONG_HEX, "[redacted-hex]")
    .replace(URL_PASSWORD, "$1[redacted]@");
}
