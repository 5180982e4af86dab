/**
 * Paths pino censors wherever they appear one or two levels deep. Secrets, tokens and signatures
 * must never reach a log line, even when a whole request body or config object is logged by mistake.
 */
const SENSITIVE_KEYS = [
  "password",
  "secret",
  "token",
  "access_token",
  "refresh_token",
  "accessToken",
  "refreshToken",
  "authorization",
  "Authorization",
  "signature",
  "privateKey",
  "private_key",
  "pepper",
  "apiKeySecret",
  "cookie",
];

export const redactPaths: string[] = SENSITIVE_KEYS.flatMap((key) => [
  key,
  `*.${key}`,
  `*.*.${key}`,
  `headers.${key.toLowerCase()}`,
  `req.headers.${key.toLowerCase()}`,
]);

const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]+/g;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
const LONG_HEX = /\b0x[0-9a-fA-F]{128,}\b/g;

/** Scrubs free text (error messages, URLs) of bearer tokens, JWTs and signature-length hex. */
export function scrubText(text: string): string {
  return text.replace(BEARER, "$1[redacted]").replace(JWT, "[redacted-jwt]").replace(LONG_HEX, "[redacted-hex]");
}
