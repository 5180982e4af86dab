import { callUnary } from "@platform/grpc";
import { defineRoute } from "@platform/http";
import { type IntentsServiceClient, TransactionStatus } from "@platform/proto/intents/v1/intents";
import { z } from "zod";
import { callMetadata } from "../../backends.js";
import { NO_STORE, TransactionIntentsSchema } from "./intentAnswers.js";
import { EXAMPLE_TX_HASH, exampleIntent } from "./intentExamples.js";
import { chainIdQuery, hash32 } from "./intentSchemas.js";
import { renderAsOf, renderIntent, transactionHref } from "./renderIntent.js";

/** `TRANSACTION_STATUS_PENDING` → `PENDING`. */
function transactionStatusName(status: TransactionStatus): string {
  const name = TransactionStatus[status];
  return typeof name === "string" && name.startsWith("TRANSACTION_STATUS_")
    ? name.slice("TRANSACTION_STATUS_".length)
    : "UNSPECIFIED";
}

/**
 * `GET /intents/v1/intents?originChainId=&txHash=`: the records one transaction opened. Always 200:
 * the transaction's own state tells an empty list apart (not found, pending, reverted, dropped), so
 * a client polling right after broadcasting never sees a 404 for a real transaction.
 */
export function listIntentsByTransactionRoute(intents: IntentsServiceClient) {
  return defineRoute({
    method: "get",
    path: "/intents/v1/intents",
    operationId: "listIntentsByTransaction",
    scope: "intents:read",
    query: z.object({
      originChainId: chainIdQuery("Chain id of the origin chain the open transaction was sent to"),
      txHash: hash32("transaction hash"),
    }),
    docs: {
      summary: "Intents opened by one transaction",
      description:
        "The records of every order the transaction opened, in log order, and transactionStatus: NOT_FOUND (neither notified nor seen), PENDING (notified, not mined or not indexed yet), SUCCEEDED, REVERTED or DROPPED. A notified transaction whose order id is not known yet appears as one SUBMITTED record with orderId null.",
      tags: ["Intents"],
      success: {
        status: 200,
        description: "The transaction's records and state",
        contentType: "application/json",
        schema: TransactionIntentsSchema,
        headers: { "Cache-Control": NO_STORE },
        example: {
          _links: { self: { href: `/intents/v1/intents?originChainId=31337&txHash=${EXAMPLE_TX_HASH}` } },
          originChainId: 31337,
          txHash: EXAMPLE_TX_HASH,
          transactionStatus: "SUCCEEDED",
          asOf: [exampleIntent.asOf[0]],
          _embedded: { items: [exampleIntent] },
        },
      },
      errors: [
        { status: 400, code: "INVALID_PARAMETER" },
        { status: 400, code: "UNSUPPORTED_CHAIN" },
      ],
    },
    async handle({ query, context }) {
      const answer = await callUnary(
        intents,
        intents.listByTransaction,
        { originChainId: String(query.originChainId), txHash: query.txHash },
        callMetadata(context),
      );
      return {
        status: 200,
        headers: { "cache-control": "no-store" },
        body: {
          _links: { self: { href: transactionHref(query.originChainId, query.txHash) } },
          originChainId: query.originChainId,
          txHash: query.txHash,
          transactionStatus: transactionStatusName(answer.transactionStatus),
          asOf: answer.asOf.map(renderAsOf),
          _embedded: { items: answer.intents.map(renderIntent) },
        } satisfies z.output<typeof TransactionIntentsSchema>,
      };
    },
  });
}
