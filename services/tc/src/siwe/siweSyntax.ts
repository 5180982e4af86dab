import { createSiweMessage } from "viem/siwe";

/*
 * Syntax of the configured SIWE fields, judged by the very serialiser Accept compares messages
 * against (viem's createSiweMessage): a value it refuses could never appear in an acceptable
 * message, so such a configuration must fail at start-up rather than refuse every acceptance.
 */

const sample = {
  address: "0x0000000000000000000000000000000000000001",
  chainId: 1,
  domain: "example.com",
  nonce: "abcdefgh1234",
  uri: "https://example.com",
  version: "1",
  issuedAt: new Date(0),
} as const;

function serialises(overrides: Partial<Parameters<typeof createSiweMessage>[0]>): boolean {
  try {
    createSiweMessage({ ...sample, ...overrides });
    return true;
  } catch {
    return false;
  }
}

/** An RFC 3986 authority (host with optional port) as EIP-4361 `domain` allows it. */
export const isSiweDomain = (value: string): boolean => serialises({ domain: value });

/** An RFC 3986 URI as EIP-4361 `uri` and `resources` allow it. */
export const isSiweUri = (value: string): boolean => serialises({ uri: value });

/** An RFC 3986 scheme. */
export const isSiweScheme = (value: string): boolean => serialises({ scheme: value });

/**
 * EIP-4361: `statement = *( reserved / unreserved / " " )`, i.e. printable ASCII without `"`,
 * `%`, `<`, `>`, `\`, `^`, backtick, `{`, `|`, `}` and without line breaks.
 */
export const isSiweStatement = (value: string): boolean => /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;= ]*$/.test(value);
