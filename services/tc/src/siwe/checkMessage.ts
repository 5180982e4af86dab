import type { Address } from "viem";
import { refusal } from "../acceptErrors.js";
import type { ParsedSiwe } from "./parseMessage.js";
import { type SiweRules, versionOfResource } from "./siweRules.js";

/** API.md: "an expirationTime no more than 10 minutes after issuedAt". */
export const MAX_MESSAGE_LIFETIME_MS = 10 * 60_000;
/** API.md: "issuedAt within 5 minutes of server time", either way. */
export const MAX_ISSUED_AT_SKEW_MS = 5 * 60_000;

/** A message that passed every check that needs neither the nonce store nor the chain. */
export interface CheckedMessage {
  wallet: Address;
  chainId: number;
  nonce: string;
  tcVersion: number;
}

/**
 * The server's own checks of a conformant message against its configuration and the time, in a
 * fixed order, throwing the first failure's code:
 *
 * 1. scheme and domain: SIWE_DOMAIN_MISMATCH (scheme + domain are the origin the wallet showed);
 * 2. uri: SIWE_URI_MISMATCH;
 * 3. chain id: SIWE_CHAIN_UNSUPPORTED;
 * 4. times: a missing expirationTime, one not after issuedAt, or one more than 10 minutes after
 *    it is SIWE_MALFORMED (the message breaks the form the server offered, whatever the clock
 *    says); expirationTime reached or issuedAt more than 5 minutes ago is SIWE_EXPIRED; issuedAt
 *    more than 5 minutes ahead or notBefore ahead is SIWE_NOT_YET_VALID;
 * 5. resources: not exactly one `coin-tc:v<N>` with N the current version: TC_VERSION_MISMATCH;
 * 6. statement not exactly the configured one: SIWE_MALFORMED (after the version, since an old
 *    version's message carries the old statement too and the version is the useful answer).
 */
export function checkMessage(message: ParsedSiwe, rules: SiweRules, now: Date): CheckedMessage {
  if (message.domain !== rules.domain) {
    throw refusal("SIWE_DOMAIN_MISMATCH", `the message's domain must be ${rules.domain}`, { expected: rules.domain });
  }
  if (message.scheme !== undefined && message.scheme !== rules.scheme) {
    throw refusal(
      "SIWE_DOMAIN_MISMATCH",
      rules.scheme === undefined
        ? "the message must not name a scheme before its domain"
        : `the message's scheme must be ${rules.scheme} or absent`,
    );
  }
  if (message.uri !== rules.uri)
    throw refusal("SIWE_URI_MISMATCH", `the message's URI must be ${rules.uri}`, { expected: rules.uri });
  if (!rules.chainIds.includes(message.chainId)) {
    throw refusal("SIWE_CHAIN_UNSUPPORTED", `chain id ${message.chainId} is not one of ${rules.chainIds.join(", ")}`, {
      supportedChainIds: [...rules.chainIds],
    });
  }

  checkTimes(message, now);

  const [only, ...others] = message.resources;
  const resourceVersion = only === undefined ? undefined : versionOfResource(only);
  if (only === undefined || others.length > 0 || resourceVersion !== rules.currentTcVersion) {
    const what =
      only === undefined
        ? "lists no resource"
        : others.length > 0
          ? `lists ${message.resources.length} resources`
          : `lists ${only}`;
    throw refusal("TC_VERSION_MISMATCH", `the message ${what}; it must list exactly one resource, ${rules.resource}`, {
      currentTcVersion: rules.currentTcVersion,
      resourceVersion: others.length === 0 && resourceVersion !== undefined ? resourceVersion : null,
    });
  }

  if (message.statement !== rules.statement)
    throw refusal("SIWE_MALFORMED", `the message's statement must be exactly "${rules.statement}"`);

  return { wallet: message.address, chainId: message.chainId, nonce: message.nonce, tcVersion: rules.currentTcVersion };
}

function checkTimes(message: ParsedSiwe, now: Date): void {
  const issuedAt = message.issuedAt.getTime();
  const expiresAt = message.expirationTime?.getTime();
  const time = now.getTime();
  if (expiresAt === undefined) throw refusal("SIWE_MALFORMED", "the message must carry an Expiration Time");
  if (expiresAt <= issuedAt) throw refusal("SIWE_MALFORMED", "the Expiration Time must be after Issued At");
  if (expiresAt - issuedAt > MAX_MESSAGE_LIFETIME_MS) {
    throw refusal(
      "SIWE_MALFORMED",
      `the Expiration Time must be at most ${MAX_MESSAGE_LIFETIME_MS / 60_000} minutes after Issued At`,
    );
  }
  if (time >= expiresAt) throw refusal("SIWE_EXPIRED", "the message's Expiration Time has passed");
  if (issuedAt < time - MAX_ISSUED_AT_SKEW_MS) {
    throw refusal("SIWE_EXPIRED", `the message was issued more than ${MAX_ISSUED_AT_SKEW_MS / 60_000} minutes ago`);
  }
  if (issuedAt > time + MAX_ISSUED_AT_SKEW_MS) {
    throw refusal(
      "SIWE_NOT_YET_VALID",
      `the message's Issued At is more than ${MAX_ISSUED_AT_SKEW_MS / 60_000} minutes ahead of server time`,
    );
  }
  const notBefore = message.notBefore?.getTime();
  if (notBefore !== undefined && time < notBefore)
    throw refusal("SIWE_NOT_YET_VALID", "the message's Not Before is still ahead");
}
