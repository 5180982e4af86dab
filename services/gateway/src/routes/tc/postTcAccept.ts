import { SIWE_MESSAGE_MAX_LENGTH, SIWE_MESSAGE_PATTERN } from "@platform/chain";
import { callUnary } from "@platform/grpc";
import { defineRoute, patternString } from "@platform/http";
import type { TcServiceClient } from "@platform/proto/tc/v1/tc";
import { z } from "zod";
import { callMetadata } from "../../backends.js";
import { TC_NO_STORE, TcAcceptanceSchema } from "./tcAnswers.js";

/** `POST /intents/v1/tc/accept`: records a wallet's signed acceptance of the current version. */
export function postTcAcceptRoute(tc: TcServiceClient) {
  return defineRoute({
    method: "post",
    path: "/intents/v1/tc/accept",
    operationId: "acceptTc",
    scope: "intents:write",
    // Signature checks may reach the chain (ERC-1271 / ERC-6492 wallets): they cost more than a read.
    cost: 5,
    body: z.object({
      message: patternString(SIWE_MESSAGE_PATTERN, {
        message: `is not an EIP-4361 message in the form the server takes (at most ${SIWE_MESSAGE_MAX_LENGTH} characters; see the pattern)`,
        code: "SIWE_MALFORMED",
      }).meta({
        description:
          "The EIP-4361 message exactly as the wallet signed it; its address EIP-55 checksummed (the format's rule)",
        format: "siwe-message",
      }),
      signature: z
        .string()
        .regex(/^0x[0-9a-fA-F]+$/, { error: "must be 0x-prefixed hex" })
        .max(20_000)
        .meta({ description: "EOA (65 bytes), ERC-1271 or ERC-6492-wrapped signature" }),
    }),
    docs: {
      summary: "Accept the current Terms & Conditions with a SIWE signature",
      description:
        "Verifies the message against the server's own configuration (domain, uri, chain ids, the single resource coin-tc:v<current>, the nonce issued to that wallet, time bounds) and the signature (EOA, deployed ERC-1271 or counterfactual ERC-6492 wallet). Each failure has its own code. The acceptance is recorded with the full message and signature for audit. One API key may have 4 acceptances in progress at once (by default; a contract wallet's check reads its chain); more answer 429 RATE_LIMITED without using the nonce.",
      tags: ["Terms & Conditions"],
      success: {
        status: 200,
        description: "Acceptance recorded",
        contentType: "application/json",
        schema: TcAcceptanceSchema,
        headers: { "Cache-Control": TC_NO_STORE },
        example: {
          walletAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
          acceptedVersion: 3,
          acceptedAt: "2026-11-22T10:01:00.000Z",
          _links: {
            status: { href: "/intents/v1/tc/status?walletAddress=0x52908400098527886E0F7030069857D2E4169EE7" },
          },
        } satisfies z.output<typeof TcAcceptanceSchema>,
      },
      errors: [
        { status: 400, code: "INVALID_REQUEST" },
        { status: 400, code: "SIWE_MALFORMED" },
        { status: 400, code: "SIWE_SIGNATURE_INVALID" },
        { status: 400, code: "SIWE_DOMAIN_MISMATCH" },
        { status: 400, code: "SIWE_URI_MISMATCH" },
        { status: 400, code: "SIWE_CHAIN_UNSUPPORTED" },
        { status: 400, code: "SIWE_EXPIRED" },
        { status: 400, code: "SIWE_NOT_YET_VALID" },
        { status: 400, code: "NONCE_INVALID_OR_USED" },
        { status: 409, code: "TC_VERSION_MISMATCH" },
      ],
    },
    async handle({ body, context }) {
      const accepted = await callUnary(
        tc,
        tc.accept,
        { message: body!.message, signature: body!.signature },
        callMetadata(context, context.keyId ?? ""),
        {
          // Contract-wallet checks call the chain and the acceptance waits for Kafka.
          deadline: Date.now() + 10_000,
        },
      );
      return {
        status: 200,
        headers: { "cache-control": "no-store" },
        body: {
          walletAddress: accepted.walletAddress,
          acceptedVersion: accepted.acceptedVersion,
          acceptedAt: accepted.acceptedAt,
          _links: { status: { href: `/intents/v1/tc/status?walletAddress=${accepted.walletAddress}` } },
        } satisfies z.output<typeof TcAcceptanceSchema>,
      };
    },
  });
}
