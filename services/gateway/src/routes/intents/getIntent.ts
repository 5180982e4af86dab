import { callUnary } from "@platform/grpc";
import { defineRoute } from "@platform/http";
import type { IntentsServiceClient } from "@platform/proto/intents/v1/intents";
import { z } from "zod";
import { callMetadata } from "../../backends.js";
import { IntentSchema, NO_STORE } from "./intentAnswers.js";
import { exampleIntent } from "./intentExamples.js";
import { hash32 } from "./intentSchemas.js";
import { renderIntent } from "./renderIntent.js";

/**
 * `GET /intents/v1/intents/{orderId}`: the mirrored status record. The id must be 32-byte hex, so
 * `/intents/v1/intents/pending` and `/expired` can never be read as an order id.
 */
export function getIntentRoute(intents: IntentsServiceClient) {
  return defineRoute({
    method: "get",
    path: "/intents/v1/intents/:orderId",
    operationId: "getIntent",
    scope: "intents:read",
    params: z.object({ orderId: hash32("order id (the Open event's orderId)") }),
    docs: {
      summary: "Mirrored status of an intent",
      description:
        "The status record of one order as the mirror has followed it on chain: OPEN, FILLED, SETTLED (final), EXPIRED (the destination's clock passed fillDeadline with no fill), REFUNDED (final); SUBMITTED, REVERTED and DROPPED for notified transactions. Each step seen carries its chain reference with finality; asOf says how far the mirror has read each chain. A reorganisation moves a record back, never forward. Chain events remain the source of truth.",
      tags: ["Intents"],
      success: {
        status: 200,
        description: "The record",
        contentType: "application/json",
        schema: IntentSchema,
        headers: { "Cache-Control": NO_STORE },
        example: exampleIntent,
      },
      errors: [
        { status: 400, code: "INVALID_PARAMETER" },
        { status: 404, code: "INTENT_NOT_FOUND" },
      ],
    },
    async handle({ params, context }) {
      const answer = await callUnary(intents, intents.getIntent, { orderId: params.orderId }, callMetadata(context));
      return { status: 200, headers: { "cache-control": "no-store" }, body: renderIntent(answer.intent!) };
    },
  });
}
