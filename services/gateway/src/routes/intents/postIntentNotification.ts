import { callUnary } from "@platform/grpc";
import { defineRoute } from "@platform/http";
import type { IntentsServiceClient } from "@platform/proto/intents/v1/intents";
import { z } from "zod";
import { callMetadata } from "../../backends.js";
import { evmAddress } from "../schemas.js";
import { IntentNotificationSchema } from "./intentAnswers.js";

const hash32 = (what: string) =>
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, { error: `must be a 0x-prefixed 32-byte hex ${what}` })
    .transform((value) => value.toLowerCase());

/**
 * `POST /intents/v1/intents`: the optional post-broadcast notification. Gated by the user's
 * acceptance of the current T&C (403 TC_NOT_ACCEPTED with acceptedVersion and currentTcVersion);
 * idempotent on (originChainId, txHash).
 */
export function postIntentNotificationRoute(intents: IntentsServiceClient) {
  return defineRoute({
    method: "post",
    path: "/intents/v1/intents",
    operationId: "notifyIntent",
    scope: "intents:write",
    body: z.object({
      userAddress: evmAddress(),
      originChainId: z
        .number()
        .int()
        .positive()
        .meta({ description: "Chain id of the origin chain the open transaction was sent to" }),
      txHash: hash32("transaction hash"),
      orderId: hash32("order id").optional().meta({ description: "The orderId of the Open event, if already known" }),
      quoteId: z.string().min(1).max(128).optional(),
    }),
    docs: {
      summary: "Notify the service of a broadcast FullSettler.open transaction",
      description:
        "Optional: the chain is the source of truth and the mirror follows it anyway; a notification makes it update sooner. The userAddress must have accepted the current Terms & Conditions and must be the transaction's sender (403 TX_SENDER_MISMATCH otherwise). The transaction must be known to the origin chain, pending or mined: notify after broadcasting it (404 TRANSACTION_NOT_FOUND otherwise; retry in a few seconds if it was just sent through another node). Repeating a notification for the same (originChainId, txHash) is harmless and answers the same record. One API key may have 4 notifications in progress at once (by default); more answer 429 RATE_LIMITED.",
      tags: ["Intents"],
      success: {
        status: 202,
        description: "Notification recorded (or already recorded)",
        contentType: "application/json",
        schema: IntentNotificationSchema,
        headers: { Location: "Where the transaction's records are: the same as `_links.status`" },
        example: {
          originChainId: 31337,
          txHash: "0x5f1c…",
          orderIds: [],
          status: "SUBMITTED",
          created: true,
          _links: { status: { href: "/intents/v1/intents?originChainId=31337&txHash=0x5f1c…" } },
        },
      },
      errors: [
        { status: 400, code: "INVALID_REQUEST" },
        { status: 400, code: "INVALID_ADDRESS" },
        { status: 400, code: "UNSUPPORTED_CHAIN" },
        { status: 403, code: "TC_NOT_ACCEPTED" },
        { status: 403, code: "TX_SENDER_MISMATCH" },
        { status: 404, code: "TRANSACTION_NOT_FOUND" },
      ],
    },
    async handle({ body, context }) {
      const metadata = callMetadata(context, context.keyId ?? "");
      const notified = await callUnary(
        intents,
        intents.notify,
        {
          userAddress: body!.userAddress,
          originChainId: String(body!.originChainId),
          txHash: body!.txHash,
          orderId: body!.orderId,
          quoteId: body!.quoteId,
        },
        metadata,
        { deadline: Date.now() + 6_000 },
      );
      const statusHref = `/intents/v1/intents?originChainId=${notified.originChainId}&txHash=${notified.txHash}`;
      return {
        status: 202,
        headers: { location: statusHref },
        body: {
          originChainId: Number(notified.originChainId),
          txHash: notified.txHash,
          orderIds: notified.orderIds,
          status: "SUBMITTED",
          created: notified.created,
          _links: { status: { href: statusHref } },
        } satisfies z.output<typeof IntentNotificationSchema>,
      };
    },
  });
}
