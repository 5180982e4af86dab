import type { Metadata } from "@grpc/grpc-js";
import { callUnary } from "@platform/grpc";
import { defineRoute, hrefWithQuery, type RouteDocs } from "@platform/http";
import type { PageInfo } from "@platform/proto/common/v1/common";
import type { IntentRecord, IntentsServiceClient } from "@platform/proto/intents/v1/intents";
import { z } from "zod";
import { callMetadata } from "../../backends.js";
import { evmAddress } from "../schemas.js";
import type { IntentListSchema } from "./intentAnswers.js";
import { pageQuery } from "./intentSchemas.js";
import { renderIntent } from "./renderIntent.js";

type ListCall = (
  intents: IntentsServiceClient,
  request: { userAddress: string; page: { limit: number; cursor: string } },
  metadata: Metadata,
) => Promise<{ intents: IntentRecord[]; page?: PageInfo | undefined }>;

/**
 * A paginated list of one user's intents (pending or expired): the shared shape of both routes.
 * `page: {limit, next_cursor, has_more}` and `_links.next` as every collection of the API; the
 * service binds cursors to the list and user, so another query's cursor is INVALID_CURSOR.
 */
export function userIntentListRoute(options: {
  path: string;
  operationId: string;
  docs: RouteDocs;
  intents: IntentsServiceClient;
  call: ListCall;
}) {
  return defineRoute({
    method: "get",
    path: options.path,
    operationId: options.operationId,
    scope: "intents:read",
    query: z.object({ userAddress: evmAddress(), ...pageQuery }),
    docs: options.docs,
    async handle({ query, context }) {
      const answer = await options.call(
        options.intents,
        { userAddress: query.userAddress, page: { limit: query.limit ?? 0, cursor: query.cursor ?? "" } },
        callMetadata(context),
      );
      const page = answer.page ?? { limit: query.limit ?? 0, hasMore: false };
      const href = (cursor: string | undefined) =>
        hrefWithQuery(options.path, { userAddress: query.userAddress, limit: query.limit, cursor });
      return {
        status: 200,
        headers: { "cache-control": "no-store" },
        body: {
          _links: {
            self: { href: href(query.cursor) },
            ...(page.hasMore && page.nextCursor ? { next: { href: href(page.nextCursor) } } : {}),
          },
          userAddress: query.userAddress,
          page: { limit: page.limit, next_cursor: page.nextCursor ?? null, has_more: page.hasMore },
          _embedded: { items: answer.intents.map(renderIntent) },
        } satisfies z.output<typeof IntentListSchema>,
      };
    },
  });
}

/** The grpc-js method bound for callUnary. */
export const listPendingCall: ListCall = (intents, request, metadata) =>
  callUnary(intents, intents.listPending, request, metadata);
export const listExpiredCall: ListCall = (intents, request, metadata) =>
  callUnary(intents, intents.listExpired, request, metadata);
