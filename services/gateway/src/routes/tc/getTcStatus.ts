import { callUnary } from "@platform/grpc";
import { defineRoute } from "@platform/http";
import type { TcServiceClient } from "@platform/proto/tc/v1/tc";
import { z } from "zod";
import { callMetadata } from "../../backends.js";
import { evmAddress } from "../schemas.js";
import { TC_NO_STORE, TcStatusSchema } from "./tcAnswers.js";

/** `GET /intents/v1/tc/status`: the wallet's acceptance of the current Terms & Conditions. */
export function getTcStatusRoute(tc: TcServiceClient) {
  return defineRoute({
    method: "get",
    path: "/intents/v1/tc/status",
    operationId: "getTcStatus",
    scope: "intents:read",
    query: z.object({ walletAddress: evmAddress() }),
    docs: {
      summary: "Terms & Conditions acceptance of a wallet",
      description:
        "Whether the wallet accepted the current T&C version, which version it accepted last (null if never) and when.",
      tags: ["Terms & Conditions"],
      success: {
        status: 200,
        description: "The wallet's acceptance status",
        contentType: "application/json",
        schema: TcStatusSchema,
        headers: { "Cache-Control": TC_NO_STORE },
        example: {
          walletAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
          currentTcVersion: 3,
          acceptedVersion: 2,
          accepted: false,
          acceptedAt: "2026-11-01T10:00:00.000Z",
          _links: { self: { href: "/intents/v1/tc/status?walletAddress=0x52908400098527886E0F7030069857D2E4169EE7" } },
        },
      },
      errors: [{ status: 400, code: "INVALID_ADDRESS" }],
    },
    async handle({ query, context }) {
      const status = await callUnary(
        tc,
        tc.getStatus,
        { walletAddress: query.walletAddress },
        callMetadata(context, context.keyId ?? ""),
      );
      return {
        status: 200,
        headers: { "cache-control": "no-store" },
        body: {
          walletAddress: status.walletAddress,
          currentTcVersion: status.currentTcVersion,
          acceptedVersion: status.acceptedVersion ?? null,
          accepted: status.accepted,
          acceptedAt: status.acceptedAt ?? null,
          _links: { self: { href: `/intents/v1/tc/status?walletAddress=${status.walletAddress}` } },
        } satisfies z.output<typeof TcStatusSchema>,
      };
    },
  });
}
