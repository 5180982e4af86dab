import type { IntentsServiceClient } from "@platform/proto/intents/v1/intents";
import { IntentListSchema, NO_STORE } from "./intentAnswers.js";
import { EXAMPLE_USER, exampleIntent } from "./intentExamples.js";
import { PAGE_DEFAULT, PAGE_MAX } from "./intentSchemas.js";
import { listExpiredCall, userIntentListRoute } from "./userIntentList.js";

/** `GET /intents/v1/intents/expired?userAddress=&limit=&cursor=`: refundable intents, latest deadline first. */
export function listExpiredIntentsRoute(intents: IntentsServiceClient) {
  return userIntentListRoute({
    path: "/intents/v1/intents/expired",
    operationId: "listExpiredIntents",
    intents,
    call: listExpiredCall,
    docs: {
      summary: "A user's expired intents",
      description: `Intents whose fill deadline passed on the destination chain's clock with no fill and no refund yet, latest fillDeadline first. refundableAt says from when anyone may call FullSettler.refund(orderId) on the origin chain. limit defaults to ${PAGE_DEFAULT}, at most ${PAGE_MAX}.`,
      tags: ["Intents"],
      success: {
        status: 200,
        description: "One page of the user's expired intents",
        contentType: "application/json",
        schema: IntentListSchema,
        headers: { "Cache-Control": NO_STORE },
        example: {
          _links: { self: { href: `/intents/v1/intents/expired?userAddress=${EXAMPLE_USER}` } },
          userAddress: EXAMPLE_USER,
          page: { limit: 20, next_cursor: null, has_more: false },
          _embedded: { items: [{ ...exampleIntent, status: "EXPIRED" }] },
        },
      },
      errors: [
        { status: 400, code: "INVALID_ADDRESS" },
        { status: 400, code: "INVALID_PARAMETER" },
        { status: 400, code: "INVALID_CURSOR" },
      ],
    },
  });
}
