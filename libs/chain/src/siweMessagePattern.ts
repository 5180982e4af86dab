/**
 * The EIP-4361 messages the platform takes, as one ECMA-262 pattern: exactly the text viem's
 * createSiweMessage writes for valid fields, with any RFC 3339 spelling of each time. The gateway
 * publishes it as the OpenAPI `pattern` of POST /intents/v1/tc/accept's `message` and refuses
 * what does not match; tc checks it again before reading a message, so the document and both
 * services agree. Narrower than the EIP's ABNF where viem would not round-trip a field (a
 * percent-encoded URI, an empty Request ID, a chain id with leading zeros or past 2^53); the one
 * rule it cannot hold, that the address is EIP-55 checksummed, is the `siwe-message` format's.
 */

const ALNUM = "A-Za-z0-9";
/** RFC 3986 unreserved and sub-delims, ':' and '@': a path character without percent-encoding. */
const PCHAR = `[${ALNUM}\\-._~!$&'()*+,;=:@]`;

const SCHEME = `[A-Za-z][${ALNUM}+.\\-]*`;
/** viem's domainRegex, ipRegex and localhostRegex, with the optional port after them. */
const DOMAIN =
  `(?:(?:[${ALNUM}](?:[${ALNUM}\\-]{0,61}[${ALNUM}])?\\.)+(?:[A-Za-z]{2,63}|[xX][nN]--[${ALNUM}\\-]{0,58}[${ALNUM}])` +
  `|(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)` +
  `|localhost)(?::[0-9]{1,5})?`;
/**
 * scheme ":" then "//", a non-empty authority and an absolute path, or a rootless path; query and
 * fragment. (viem refuses an empty authority followed by a path starting "//".)
 */
const URI =
  `${SCHEME}:(?://[${ALNUM}\\-._~!$&'()*+,;=:@\\[\\]]+(?:/${PCHAR}*)*|(?:${PCHAR}(?:${PCHAR}|/)*)?)` +
  `(?:\\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?`;
/** EIP-4361's statement: reserved and unreserved characters and spaces, one line. */
const STATEMENT = `[${ALNUM}\\-._~:/?#\\[\\]@!$&'()*+,;= ]+`;
const DATE_TIME =
  "[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]+)?" +
  "(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])";

/** Longer messages are refused: a conformant one for this service is a few hundred characters. */
export const SIWE_MESSAGE_MAX_LENGTH = 4_096;

/** The form alone, without the length bound: for generators that cannot read a lookahead (fast-check). */
export const SIWE_MESSAGE_FORM = new RegExp(
  `^(?:${SCHEME}://)?${DOMAIN} wants you to sign in with your Ethereum account:\\n0x[0-9a-fA-F]{40}\\n\\n(?:${STATEMENT}\\n)?\\n` +
    `URI: ${URI}\\nVersion: 1\\nChain ID: [1-9][0-9]{0,14}\\nNonce: [${ALNUM}]{8,}\\nIssued At: ${DATE_TIME}` +
    `(?:\\nExpiration Time: ${DATE_TIME})?(?:\\nNot Before: ${DATE_TIME})?(?:\\nRequest ID: ${PCHAR}+)?` +
    `(?:\\nResources:(?:\\n- ${URI})*)?$`,
);

/*
 * The length bound is a lookahead inside the pattern rather than a JSON Schema maxLength beside it:
 * the same rule, but schema-driven generators then need not find a message of exactly the maximum
 * length that also matches (schemathesis spent a minute a run searching for one).
 */
export const SIWE_MESSAGE_PATTERN = new RegExp(
  `^(?=[\\s\\S]{1,${SIWE_MESSAGE_MAX_LENGTH}}$)${SIWE_MESSAGE_FORM.source.slice(1)}`,
);
