import { status } from "@grpc/grpc-js";
import { defineRoute } from "@platform/http";
import type { IntentsServiceClient, WatchIntentsResponse } from "@platform/proto/intents/v1/intents";
import { z } from "zod";
import { callMetadata } from "../../backends.js";
import { HttpProblem } from "../../HttpProblem.js";
import { exampleIntent } from "../intents/intentExamples.js";
import { hash32 } from "../intents/intentSchemas.js";
import { renderIntent } from "../intents/renderIntent.js";
import { evmAddress } from "../schemas.js";
import { type EmittedEvent, INTENT_EVENTS } from "./eventSchemas.js";
import { type EventStreams, lastEventId, serveEventStream, watchSource } from "./serveEventStream.js";
import { streamSuccess } from "./sseWriter.js";

const PATH = "/intents/v1/events";

/**
 * `GET /intents/v1/events?userAddress=` or `?orderId=`: a `status` event per change of a matching
 * record, from the intents read model's change log through intents-gateway's WatchIntents.
 */
export function intentEventsRoute(intents: IntentsServiceClient, streams: EventStreams) {
  return defineRoute({
    method: "get",
    path: PATH,
    operationId: "streamIntentEvents",
    scope: "intents:read",
    query: z.object({
      userAddress: evmAddress().optional(),
      orderId: hash32("order id (the Open event's orderId)").optional(),
    }),
    docs: {
      summary: "Stream of intent status changes (server-sent events)",
      description: `text/event-stream. Name exactly one of userAddress and orderId. Events, in commit order, each with an id (a resumable position): \`status\` when a matching record's status changes (or the record appears), \`update\` when something else of it changes (a step becomes final, a notification is linked); data = the record as GET /intents/v1/intents/{orderId} renders it; \`removed\` (a reorganisation removed the record: data {key}); \`live\` (caught up: later changes follow as they are committed; its id is where the stream stands); \`gap\` (Last-Event-ID is older than the change log keeps, or more than 1,000 changes behind: the stream goes on from the newest 1,000, and changes before them may be missing: re-read the records); \`dropped\` (the client read too slowly), \`closed\` (the key was revoked or rotated, the token expired): both end the stream. Send the last id back as the Last-Event-ID header to resume with no gap and no repeat. A comment line every 15 s keeps proxies open. Each key may hold ${streams.slots.cap} streams at once (429 RATE_LIMITED past that), and each gateway replica serves ${streams.replicaCap.toLocaleString("en-US")} streams of every key together (503 UNAVAILABLE with Retry-After past that: retry, another replica may take it); opening one spends the route's cost once, and a resume's replay (the events before \`live\`) one more unit for every ${streams.replayEventsPerUnit} events: a budget spent mid-replay ends the stream with \`closed\` (data {code: RATE_LIMITED, retryAfterSeconds}); resume from the last id after that; a revoked or rotated key's streams close within 5 s.`,
      tags: ["Intents"],
      success: streamSuccess(INTENT_EVENTS, { event: "status", id: "1795758735926-0", data: exampleIntent }),
      errors: [
        { status: 400, code: "INVALID_PARAMETER" },
        { status: 400, code: "INVALID_ADDRESS" },
      ],
    },
    async handle({ query, context }) {
      if ((query.userAddress === undefined) === (query.orderId === undefined))
        throw new HttpProblem({
          code: "INVALID_PARAMETER",
          grpcStatus: status.INVALID_ARGUMENT,
          detail: "name exactly one of userAddress and orderId",
          extras: { parameter: query.userAddress === undefined ? "userAddress" : "orderId" },
          headers: {},
        });
      const after = lastEventId(context);
      const stream = await serveEventStream(
        streams,
        PATH,
        context,
        watchSource<WatchIntentsResponse>({
          after,
          open: (from) =>
            intents.watchIntents(
              { userAddress: query.userAddress ?? "", orderId: query.orderId ?? "", after: from ?? "" },
              callMetadata(context, context.keyId),
              { deadline: Number.POSITIVE_INFINITY },
            ),
          eventOf,
        }),
      );
      return { status: 200, body: undefined, stream };
    },
  });
}

/** The event a change sends: typed by the schemas the document declares (eventSchemas.ts). */
export function eventOf(message: WatchIntentsResponse): EmittedEvent<typeof INTENT_EVENTS> | undefined {
  const change = message.change;
  switch (change?.$case) {
    case "record":
      return {
        id: message.position,
        event: message.statusChanged ? "status" : "update",
        data: renderIntent(change.value),
      };
    case "removed":
      return { id: message.position, event: "removed", data: { key: change.value } };
    case "live":
      return { id: message.position, event: "live", data: { position: message.position } };
    case "gap":
      return { event: "gap", data: { oldest: message.position } };
    default:
      return undefined;
  }
}
