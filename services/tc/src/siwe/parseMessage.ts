import { SIWE_MESSAGE_MAX_LENGTH, SIWE_MESSAGE_PATTERN } from "@platform/chain";
import { type Address, getAddress } from "viem";
import { createSiweMessage, parseSiweMessage, SiweInvalidMessageFieldError } from "viem/siwe";
import { refusal } from "../acceptErrors.js";

/** A message that is EIP-4361 conformant, with every field Accept needs. */
export interface ParsedSiwe {
  scheme: string | undefined;
  domain: string;
  /** EIP-55, exactly as in the message. */
  address: Address;
  statement: string | undefined;
  uri: string;
  chainId: number;
  nonce: string;
  issuedAt: Date;
  expirationTime: Date | undefined;
  notBefore: Date | undefined;
  resources: string[];
  /** The times exactly as the message spells them (RFC 3339), for the audit record. */
  issuedAtText: string;
  expirationTimeText: string | undefined;
}

/** Longer messages are refused unread (the published form's bound, libs/chain). */
export const MAX_MESSAGE_LENGTH = SIWE_MESSAGE_MAX_LENGTH;

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const TIME_FIELDS = ["Issued At", "Expiration Time", "Not Before"] as const;
const REQUIRED_LINES = ["URI", "Version", "Chain ID", "Nonce", "Issued At"] as const;

const malformed = (detail: string) => refusal("SIWE_MALFORMED", detail);

/**
 * Parses an EIP-4361 message and proves it conforms to the ABNF, or throws SIWE_MALFORMED.
 *
 * viem's parseSiweMessage is lenient (partial results, any case of address, unanchored suffix,
 * extra lines ignored), so conformance is established by serialising the parsed fields again with
 * createSiweMessage, which validates each field, and requiring the very same text. The one
 * latitude: a time may be written in any RFC 3339 form (createSiweMessage always writes
 * milliseconds and `Z`), as long as it denotes the instant that was parsed.
 */
export function parseSiwe(message: string): ParsedSiwe {
  if (message.length === 0) throw malformed("the message is empty");
  if (message.length > MAX_MESSAGE_LENGTH)
    throw malformed(`the message is longer than ${MAX_MESSAGE_LENGTH} characters`);

  // The published form (libs/chain): what it refuses, the gateway refuses too, with the same code.
  const conformant = SIWE_MESSAGE_PATTERN.test(message);
  const parsed = parseSiweMessage(message);
  const { domain, address, uri, version, chainId, nonce, issuedAt } = parsed;
  if (domain === undefined || address === undefined) {
    throw malformed(
      'the message does not start with "<domain> wants you to sign in with your Ethereum account:" and an address',
    );
  }
  if (
    uri === undefined ||
    version === undefined ||
    chainId === undefined ||
    nonce === undefined ||
    issuedAt === undefined
  ) {
    // viem matches the required lines as one block; name what is absent, or else their order.
    const missing = REQUIRED_LINES.filter((label) => !message.includes(`\n${label}: `));
    throw malformed(
      missing.length > 0
        ? `the message lacks ${missing.join(", ")}`
        : `the lines ${REQUIRED_LINES.join(", ")} must follow one another in this order, with valid values`,
    );
  }
  // EIP-4361 says SHOULD; requiring the checksum means the text a wallet displayed names exactly one account.
  if (getAddress(address) !== address) throw malformed("the address must be EIP-55 checksummed");
  for (const [name, value] of [
    ["Issued At", issuedAt],
    ["Expiration Time", parsed.expirationTime],
    ["Not Before", parsed.notBefore],
  ] as const) {
    if (value !== undefined && Number.isNaN(value.getTime())) throw malformed(`${name} is not an RFC 3339 date-time`);
  }

  let canonical: string;
  try {
    canonical = createSiweMessage({ ...parsed, domain, address, uri, version, chainId, nonce, issuedAt });
  } catch (error) {
    if (error instanceof SiweInvalidMessageFieldError) throw malformed(error.shortMessage);
    throw malformed("the message does not serialise as EIP-4361");
  }
  // Times live after the URI line; a statement cannot contain a line break, so this is the suffix.
  const suffix = message.slice(Math.max(0, message.indexOf("\nURI: ")));
  const times = new Map<string, string>();
  for (const field of TIME_FIELDS) {
    const text = new RegExp(`\\n${field}: (.*)`).exec(suffix)?.[1];
    if (text !== undefined) times.set(field, text);
  }
  if (withTimesAsWritten(canonical, times) !== message) {
    throw malformed("the message is not in EIP-4361 form (extra, missing or reordered lines, or stray whitespace)");
  }
  // After the checks above, which name what is wrong: what is left is a field viem takes and the
  // published form narrows (a percent-encoded URI, a Request ID outside RFC 3986 pchar...).
  if (!conformant)
    throw malformed("the message is outside the form the API documents (the pattern of message in /openapi.json)");

  return {
    scheme: parsed.scheme,
    domain,
    address,
    statement: parsed.statement,
    uri,
    chainId,
    nonce,
    issuedAt,
    expirationTime: parsed.expirationTime,
    notBefore: parsed.notBefore,
    resources: parsed.resources ?? [],
    issuedAtText: times.get("Issued At") ?? issuedAt.toISOString(),
    expirationTimeText: times.get("Expiration Time"),
  };
}

/** The canonical text with each time line spelt as the message spells it, when that is the same instant. */
function withTimesAsWritten(canonical: string, times: ReadonlyMap<string, string>): string {
  let inSuffix = false;
  return canonical
    .split("\n")
    .map((line) => {
      inSuffix ||= line.startsWith("URI: ");
      if (!inSuffix) return line;
      for (const field of TIME_FIELDS) {
        const prefix = `${field}: `;
        if (!line.startsWith(prefix)) continue;
        const written = times.get(field);
        const iso = line.slice(prefix.length);
        if (written !== undefined && RFC3339.test(written) && Date.parse(written) === Date.parse(iso))
          return prefix + written;
      }
      return line;
    })
    .join("\n");
}
