import { type AsOf, type ChainRef, Finality } from "@platform/proto/common/v1/common";
import type { Output } from "@platform/proto/events/v1/chain_intents";
import { IntentRecord, IntentStatus } from "@platform/proto/intents/v1/intents";
import { getAddress } from "viem";
import { type HeadState, headSeconds } from "./heads.js";
import { type OrderState, standing } from "./orderState.js";
import type { TxState } from "./txState.js";

/*
 * Records are derived, never patched: a record is a pure function of the events that stand for its
 * order, the notification of its transaction, and the chains' heads. Whatever is added or removed,
 * in whatever order, the record is what those inputs say now, so a removal moves it back.
 */

export interface DeriveContext {
  /** The chains' current heads by chain id. */
  heads: ReadonlyMap<string, HeadState>;
  /** FullSettler's REFUND_GRACE in seconds: refundable_at = fill_deadline + this. */
  refundGraceSeconds: number;
}

const FINAL = new Set([
  IntentStatus.INTENT_STATUS_SETTLED,
  IntentStatus.INTENT_STATUS_REFUNDED,
  IntentStatus.INTENT_STATUS_REVERTED,
]);

export function isFinalStatus(status: IntentStatus): boolean {
  return FINAL.has(status);
}

/**
 * The status record of an order whose Open stands; undefined while it does not (never seen, or
 * removed by a reorganisation). `notification` is the notified transaction that opened or named
 * the order, if any. `updated_at` is left empty: the caller stamps records that changed.
 */
export function deriveOrderRecord(
  state: OrderState,
  notification: TxState | undefined,
  context: DeriveContext,
): IntentRecord | undefined {
  const opened = standing(state, "orderOpened");
  if (opened === undefined) return undefined;
  const filled = standing(state, "orderFilled");
  const settled = standing(state, "orderSettled");
  const refunded = standing(state, "orderRefunded");
  const open = opened.value;
  const order = open.resolvedOrder;
  const openRef = open.ref!;
  const originChainId = openRef.chainId;
  const destinationChainId = order?.fillInstructions[0]?.destinationChainId ?? order?.maxSpent[0]?.chainId;
  const fillDeadline = order?.fillDeadline;
  const destinationHead = destinationChainId === undefined ? undefined : context.heads.get(destinationChainId);

  let status: IntentStatus;
  if (refunded !== undefined) status = IntentStatus.INTENT_STATUS_REFUNDED;
  else if (settled !== undefined) status = IntentStatus.INTENT_STATUS_SETTLED;
  else if (filled !== undefined) status = IntentStatus.INTENT_STATUS_FILLED;
  // A fill at the deadline itself is still in time (FullSettler, Across): expired only past it.
  else if (fillDeadline !== undefined && destinationHead !== undefined && headSeconds(destinationHead) > fillDeadline) {
    status = IntentStatus.INTENT_STATUS_EXPIRED;
  } else status = IntentStatus.INTENT_STATUS_OPEN;

  const input = order?.minReceived[0];
  const output = order?.maxSpent[0];
  const record: IntentRecord = {
    orderId: state.orderId,
    status,
    isFinal: isFinalStatus(status),
    userAddress: order?.user ?? open.txFrom,
    originChainId,
    originTxHash: (openRef.txHash ?? "").toLowerCase(),
    destinationChainId,
    input: input === undefined ? undefined : { token: evmAddress(input.token), amount: input.amount },
    output: output === undefined ? undefined : outputOf(output),
    fillDeadline,
    refundableAt:
      fillDeadline === undefined
        ? undefined
        : new Date((fillDeadline + context.refundGraceSeconds) * 1_000).toISOString(),
    filler: filled?.value.filler ?? settled?.value.filler,
    opened: raised(openRef, context.heads),
    filled: filled === undefined ? undefined : raised(filled.value.ref!, context.heads),
    settled: settled === undefined ? undefined : raised(settled.value.ref!, context.heads),
    refunded: refunded === undefined ? undefined : raised(refunded.value.ref!, context.heads),
    notifiedAt: notification?.notified?.notifiedAt,
    updatedAt: "",
    asOf: asOfChains([originChainId, destinationChainId], context.heads),
  };
  return record;
}

/**
 * The record of a notified transaction that has no Open standing: SUBMITTED while nothing is known,
 * REVERTED (final) or DROPPED as the ingestor resolved it. Undefined when there is nothing to show:
 * never notified, or mined and succeeded without opening an order.
 */
export function derivePlaceholderRecord(tx: TxState, context: DeriveContext): IntentRecord | undefined {
  const notified = tx.notified;
  if (notified === undefined) return undefined;
  const resolution = tx.resolution;
  if (resolution?.outcome === "SUCCEEDED" && resolution.orderIds.length === 0) return undefined;
  const status =
    resolution?.outcome === "REVERTED"
      ? IntentStatus.INTENT_STATUS_REVERTED
      : resolution?.outcome === "DROPPED"
        ? IntentStatus.INTENT_STATUS_DROPPED
        : IntentStatus.INTENT_STATUS_SUBMITTED;
  return {
    orderId: placeholderOrderId(tx) ?? "",
    status,
    isFinal: isFinalStatus(status),
    userAddress: notified.userAddress,
    originChainId: tx.chainId,
    originTxHash: tx.txHash,
    notifiedAt: notified.notifiedAt,
    updatedAt: "",
    asOf: asOfChains([tx.chainId], context.heads),
  };
}

/**
 * The order id a notified transaction's record is kept under: the notified one, unless the receipt
 * showed the transaction opened other orders (then the notification's id was wrong).
 */
export function placeholderOrderId(tx: TxState): string | undefined {
  const orderId = tx.notified?.orderId;
  if (orderId === undefined) return undefined;
  const resolution = tx.resolution;
  if (resolution?.outcome === "SUCCEEDED" && !resolution.orderIds.includes(orderId)) return undefined;
  return orderId;
}

/** A step's finality, raised to what the chain's head now says of its block (never lowered). */
function raised(ref: ChainRef, heads: ReadonlyMap<string, HeadState>): ChainRef {
  const head = heads.get(ref.chainId);
  if (head === undefined) return ref;
  const block = BigInt(ref.blockNumber);
  let finality = ref.finality;
  if (head.finalizedBlockNumber !== undefined && BigInt(head.finalizedBlockNumber) >= block)
    finality = Finality.FINALITY_FINALIZED;
  else if (
    head.safeBlockNumber !== undefined &&
    BigInt(head.safeBlockNumber) >= block &&
    finality < Finality.FINALITY_SAFE
  ) {
    finality = Finality.FINALITY_SAFE;
  }
  return finality === ref.finality ? ref : { ...ref, finality };
}

function asOfChains(chainIds: readonly (string | undefined)[], heads: ReadonlyMap<string, HeadState>): AsOf[] {
  const asOf: AsOf[] = [];
  for (const chainId of new Set(chainIds)) {
    const head = chainId === undefined ? undefined : heads.get(chainId);
    if (head === undefined) continue;
    asOf.push({
      chainId: head.chainId,
      blockNumber: head.blockNumber,
      blockHash: head.blockHash,
      timestamp: head.timestamp,
      finality: Finality.FINALITY_LATEST,
    });
  }
  return asOf;
}

function outputOf(output: Output) {
  return { token: evmAddress(output.token), amount: output.amount, recipient: evmAddress(output.recipient) };
}

/** Recent evmAddress answers: the EIP-55 checksum hashes the address, and tokens and users repeat. */
const checksummed = new Map<string, string>();
const CHECKSUMMED_LIMIT = 10_000;

/** ERC-7683 carries addresses as bytes32; the record shows the EVM address (EIP-55) when it is one. */
function evmAddress(value: string): string {
  const known = checksummed.get(value);
  if (known !== undefined) return known;
  const address = /^0x0{24}[0-9a-fA-F]{40}$/.test(value) ? getAddress(`0x${value.slice(26)}`) : value;
  if (checksummed.size >= CHECKSUMMED_LIMIT) checksummed.clear();
  checksummed.set(value, address);
  return address;
}

/** A record as read from Redis: decoded, and the bytes it was read from. */
export interface StoredRecord {
  record: IntentRecord;
  bytes: Uint8Array;
}

/**
 * Whether `next` is the stored record, ignoring when each was stamped: `next` stamped as the stored
 * one was must encode to the stored bytes (one encode; the stored side is not encoded again). Bytes
 * written by another version of the encoder may differ for an equal record: that costs one rewrite.
 */
export function sameAsStored(stored: StoredRecord | undefined, next: IntentRecord | undefined): boolean {
  if (stored === undefined || next === undefined) return stored === undefined && next === undefined;
  return encodeRecord({ ...next, updatedAt: stored.record.updatedAt }).equals(stored.bytes);
}

/**
 * One writer for every record: a fresh one (ts-proto's default) starts at 128 bytes and grows,
 * copying, to a record's size each time. `finish()` hands out a copy of the bytes and resets it.
 */
const writer = IntentRecord.encode(IntentRecord.fromPartial({}));
writer.finish();

/** The record's protobuf bytes, as stored at `rm:{intents}:order:<suffix>`. */
export function encodeRecord(record: IntentRecord): Buffer {
  try {
    const bytes = IntentRecord.encode(record, writer).finish();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (error) {
    // Leave the shared writer empty for the next record.
    writer.finish();
    throw error;
  }
}
