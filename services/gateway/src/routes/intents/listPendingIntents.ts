import type { IntentsServiceClient } from "@platform/proto/intents/v1/intents";
import { IntentListSchema, NO_STORE } from "./intentAnswers.js";
import { EXAMPLE_USER, exampleIntent } from "./intentExamples.js";
import { PAGE_DEFAULT, PAGE_MAX } from "./intentSchemas.js";
import { listPendingCall, userIntentListRoute } from "./userIntentList.js";

/** `GET /intents/v1/intents/pending?userAddress=&limit=&cursor=`: the user's intents not yet final, newest first. */
export function listPendingIntentsRoute(intents: IntentsServiceClient) {
  return userIntentListRoute({
    path: "/intents/v1/intents/pending",
    operationId: "listPendingIntents",
    intents,
    call: listPendingCall,
    docs: {
      summary: "A user's pending intents",
      description: `Intents of the user that are not final yet (SUBMITTED, OPEN, FILLED, and EXPIRED until refunded), newest first (by when the mirror first saw them). limit defaults to ${PAGE_DEFAULT}, at most ${PAGE_MAX}; follow _links.next (or pass page.next_cursor as cursor) for the next page.`,
      tags: ["Intents"],
      success: {
        status: 200,
        description: "One page of the user's pending intents",
        contentType: "application/json",
        schema: IntentListSchema,
        headers: { "Cache-Control": NO_STORE },
        example: {
          _links: {
            self: { href: `/intents/v1/intents/pending?userAddress=${EXAMPLE_USER}&limit=1` },
            next: {
              href: `/intents/v1/intents/pending?userAddress=${EXAMPLE_USER}&limit=1&cursor=eyJ2IjoxLCJsIjoicGVuZGluZyIs…`,
            },
          },
          userAddress: EXAMPLE_USER,
          page: { limit: 1, next_cursor: "eyJ2IjoxLCJsIjoicGVuZGluZyIs…", has_more: true },
          _embedded: { items: [exampleIntent] },
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
