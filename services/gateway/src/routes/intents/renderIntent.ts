import { hrefWithQuery } from "@platform/http";
import { type AsOf, type ChainRef, Finality } from "@platform/proto/common/v1/common";
import { type IntentRecord, IntentStatus } from "@platform/proto/intents/v1/intents";
import type { z } from "zod";
import type { ChainAsOfSchema, ChainRefSchema, IntentSchema } from "./intentAnswers.js";

/**
 * The public JSON of a mirrored intent: camelCase, amounts as decimal strings, chain ids and block
 * numbers as integers, the status as its bare state name and finality as latest|safe|finalized.
 * Steps not seen yet are null (never guessed), so "no refund known" reads as null, not as absent data.
 */

export type FinalityName = "latest" | "safe" | "finalized";

const FINALITY_NAMES: Partial<Record<Finality, FinalityName>> = {
  [Finality.FINALITY_LATEST]: "latest",
  [Finality.FINALITY_SAFE]: "safe",
  [Finality.FINALITY_FINALIZED]: "finalized",
};

export function finalityName(finality: Finality): FinalityName | null {
  return FINALITY_NAMES[finality] ?? null;
}

/** `INTENT_STATUS_OPEN` → `OPEN`. */
export function intentStatusName(status: IntentStatus): string {
  const name = IntentStatus[status];
  return typeof name === "string" && name.startsWith("INTENT_STATUS_")
    ? name.slice("INTENT_STATUS_".length)
    : "UNSPECIFIED";
}

/** uint64 values arrive as decimal strings; block numbers and chain ids stay far below 2^53. */
const integer = (value: string) => Number(value);

export function renderAsOf(asOf: AsOf): z.output<typeof ChainAsOfSchema> {
  return {
    chainId: integer(asOf.chainId),
    blockNumber: integer(asOf.blockNumber),
    blockHash: asOf.blockHash,
    timestamp: asOf.timestamp,
    finality: finalityName(asOf.finality),
  };
}

export function renderChainRef(ref: ChainRef | undefined): z.output<typeof ChainRefSchema> | null {
  if (ref === undefined) return null;
  return {
    chainId: integer(ref.chainId),
    blockNumber: integer(ref.blockNumber),
    blockHash: ref.blockHash,
    parentHash: ref.parentHash,
    blockTimestamp: ref.blockTimestamp,
    txHash: ref.txHash ?? null,
    txIndex: ref.txIndex ?? null,
    logIndex: ref.logIndex ?? null,
    finality: finalityName(ref.finality),
  };
}

export const intentHref = (orderId: string) => `/intents/v1/intents/${orderId}`;
export const transactionHref = (originChainId: string | number, txHash: string) =>
  hrefWithQuery("/intents/v1/intents", { originChainId, txHash });

/** One record with its links: itself (by order id, or by transaction while the id is unknown) and its transaction. */
export function renderIntent(record: IntentRecord): z.output<typeof IntentSchema> {
  const byTransaction = record.originTxHash ? transactionHref(record.originChainId, record.originTxHash) : undefined;
  const self = record.orderId ? intentHref(record.orderId) : byTransaction;
  return {
    _links: {
      ...(self === undefined ? {} : { self: { href: self } }),
      ...(byTransaction === undefined ? {} : { transaction: { href: byTransaction } }),
    },
    orderId: record.orderId || null,
    status: intentStatusName(record.status),
    isFinal: record.isFinal,
    userAddress: record.userAddress,
    originChainId: integer(record.originChainId),
    originTxHash: record.originTxHash || null,
    destinationChainId: record.destinationChainId === undefined ? null : integer(record.destinationChainId),
    input: record.input === undefined ? null : { token: record.input.token, amount: record.input.amount },
    output:
      record.output === undefined
        ? null
        : { token: record.output.token, amount: record.output.amount, recipient: record.output.recipient },
    fillDeadline: record.fillDeadline ?? null,
    refundableAt: record.refundableAt ?? null,
    filler: record.filler ?? null,
    opened: renderChainRef(record.opened),
    filled: renderChainRef(record.filled),
    settled: renderChainRef(record.settled),
    refunded: renderChainRef(record.refunded),
    notifiedAt: record.notifiedAt ?? null,
    updatedAt: record.updatedAt,
    asOf: record.asOf.map(renderAsOf),
  };
}

export type RenderedIntent = ReturnType<typeof renderIntent>;
