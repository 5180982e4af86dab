import type { SignatureKind, TcAcceptanceEvent } from "@platform/proto/events/v1/tc_acceptances";
import type { Hex } from "viem";
import type { ParsedSiwe } from "../siwe/parseMessage.js";

export interface AcceptanceFacts {
  /** The message exactly as signed. */
  message: string;
  parsed: ParsedSiwe;
  /** The signature exactly as submitted. */
  signature: Hex;
  signatureKind: SignatureKind;
  tcVersion: number;
  acceptedAt: Date;
  /** The API key of the request, when the gateway passed it; "" otherwise. */
  apiKeyId: string;
}

/** The audit record of an acceptance: everything needed to verify it again later. */
export function termsAccepted(facts: AcceptanceFacts): TcAcceptanceEvent {
  const { parsed } = facts;
  return {
    event: {
      $case: "termsAccepted",
      value: {
        walletAddress: parsed.address,
        tcVersion: facts.tcVersion,
        message: facts.message,
        signature: facts.signature,
        signatureKind: facts.signatureKind,
        chainId: String(parsed.chainId),
        nonce: parsed.nonce,
        domain: parsed.domain,
        uri: parsed.uri,
        issuedAt: parsed.issuedAtText,
        expirationTime: parsed.expirationTimeText ?? "",
        acceptedAt: facts.acceptedAt.toISOString(),
        apiKeyId: facts.apiKeyId,
      },
    },
  };
}
