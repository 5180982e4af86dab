import { callUnary } from "@platform/grpc";
import { defineRoute } from "@platform/http";
import type { TcServiceClient } from "@platform/proto/tc/v1/tc";
import { z } from "zod";
import { callMetadata } from "../../backends.js";
import { evmAddress } from "../schemas.js";
import { TC_NO_STORE, TcNonceSchema } from "./tcAnswers.js";

/** `POST /intents/v1/tc/nonce`: a single-use nonce for the wallet and the exact SIWE fields the server accepts. */
export function postTcNonceRoute(tc: TcServiceClient) {
  return defineRoute({
    method: "post",
    path: "/intents/v1/tc/nonce",
    operationId: "issueTcNonce",
    scope: "intents:write",
    body: z.object({ walletAddress: evmAddress() }),
    docs: {
      summary: "Get a nonce and the SIWE fields to accept the current Terms & Conditions",
      description:
        "The wallet signs an EIP-4361 message built from exactly these fields (domain, uri, version, one of chainIds, statement, the single resource coin-tc:v<N>) with this nonce, an issuedAt within 5 minutes of server time and an expirationTime at most 10 minutes after it, then submits it to POST /intents/v1/tc/accept. The nonce is bound to the wallet and works once.",
      tags: ["Terms & Conditions"],
      success: {
        status: 200,
        description: "A fresh nonce",
        contentType: "application/json",
        schema: TcNonceSchema,
        headers: { "Cache-Control": TC_NO_STORE },
        example: {
          walletAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
          nonce: "Xk2cP9vQ1mT7rL4wZ8aB3nD6",
          expiresAt: "2026-11-22T10:10:00.000Z",
          issuedAt: "2026-11-22T10:00:00.000Z",
          domain: "api.example",
          uri: "https://api.example",
          version: "1",
          chainIds: [1],
          statement: "I accept the Terms and Conditions version 3.",
          resource: "coin-tc:v3",
          currentTcVersion: 3,
        },
      },
      errors: [
        { status: 400, code: "INVALID_ADDRESS" },
        { status: 400, code: "INVALID_REQUEST" },
      ],
    },
    async handle({ body, context }) {
      const nonce = await callUnary(
        tc,
        tc.issueNonce,
        { walletAddress: body!.walletAddress },
        callMetadata(context, context.keyId ?? ""),
      );
      return {
        status: 200,
        headers: { "cache-control": "no-store" },
        body: {
          walletAddress: nonce.walletAddress,
          nonce: nonce.nonce,
          expiresAt: nonce.expiresAt,
          issuedAt: nonce.issuedAt,
          domain: nonce.domain,
          uri: nonce.uri,
          version: nonce.version,
          chainIds: nonce.chainIds.map(Number),
          statement: nonce.statement,
          resource: nonce.resource,
          currentTcVersion: nonce.currentTcVersion,
        } satisfies z.output<typeof TcNonceSchema>,
      };
    },
  });
}
