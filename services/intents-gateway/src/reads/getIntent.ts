import { notFound } from "@platform/errors";
import type { GetIntentRequest, GetIntentResponse } from "@platform/proto/intents/v1/intents";
import { intentsReadKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { parseHash32 } from "../validation/fields.js";
import { loadRecords, withCurrentHeads } from "./loadRecords.js";

/** The mirrored record of one order; INTENT_NOT_FOUND (404) when the mirror has none. */
export async function getIntent(redis: Redis, request: GetIntentRequest): Promise<GetIntentResponse> {
  const orderId = parseHash32(request.orderId, "orderId");
  const [record] = await loadRecords(redis, [intentsReadKeys.order(orderId)]);
  if (record === undefined) {
    throw notFound(
      "INTENT_NOT_FOUND",
      `no intent with orderId ${orderId} is known (yet): the mirror follows the chain a few blocks behind`,
      { orderId },
    );
  }
  const [intent] = await withCurrentHeads(redis, [record]);
  return { intent: intent! };
}
