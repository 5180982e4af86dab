import { DecodeError } from "@platform/errors/base";
import type { ChainRef } from "@platform/proto/common/v1/common";
import {
  IntentsChainEvent,
  type OrderFilled,
  type OrderOpened,
  type OrderRefunded,
  type OrderSettled,
} from "@platform/proto/events/v1/chain_intents";

/** A chain event of one order that stands (was published and not removed since). */
export type StandingEvent =
  | { id: string; kind: "orderOpened"; value: OrderOpened }
  | { id: string; kind: "orderFilled"; value: OrderFilled }
  | { id: string; kind: "orderSettled"; value: OrderSettled }
  | { id: string; kind: "orderRefunded"; value: OrderRefunded };

/**
 * The IntentsChainEvent bytes an event's value was decoded from (its record's value, or its entry
 * in the stored state), so serialising stores them as they are instead of encoding the value
 * again. Values are never mutated, so the bytes stay right; an event without an entry is encoded.
 */
const storedForms = new WeakMap<object, Uint8Array>();

/** What the projection knows of one order: the fold of its events (`rm:{intents}:events:<orderId>`). */
export interface OrderState {
  orderId: string;
  /** In the order they were applied. */
  events: StandingEvent[];
  /** `<chainId>:<txHash>` of a notification that named this order id. */
  notifiedTx?: string;
}

/** The identity of a chain event: (chain_id, block_hash, tx_hash, log_index). */
export function eventIdentity(ref: ChainRef | undefined): string {
  if (ref === undefined) throw new DecodeError("chain event without a chain reference");
  return `${ref.chainId}:${ref.blockHash.toLowerCase()}:${(ref.txHash ?? "").toLowerCase()}:${ref.logIndex ?? ""}`;
}

export function emptyOrderState(orderId: string): OrderState {
  return { orderId, events: [] };
}

/**
 * Applies one chain event of the order. An event already standing is not applied twice, and a
 * removal takes out exactly the event with the removed identity (a removal of something not
 * standing changes nothing), so replaying events in any number is harmless.
 */
export function evolveOrder(state: OrderState, payload: IntentsChainEvent): OrderState {
  return evolveOrderFromRecord(state, payload, undefined);
}

/** evolveOrder for an event read from its record: `stored` (the record's bytes) is kept as its stored form. */
export function evolveOrderFromRecord(
  state: OrderState,
  payload: IntentsChainEvent,
  stored: Uint8Array | undefined,
): OrderState {
  const event = payload.event;
  if (event === undefined) return state;
  switch (event.$case) {
    case "orderOpened":
    case "orderFilled":
    case "orderSettled":
    case "orderRefunded": {
      const id = eventIdentity(event.value.ref);
      if (state.events.some((standing) => standing.id === id)) return state;
      if (stored !== undefined) storedForms.set(event.value, stored);
      return { ...state, events: [...state.events, { id, kind: event.$case, value: event.value } as StandingEvent] };
    }
    case "chainEventRemoved": {
      const id = eventIdentity(event.value.removed);
      const events = state.events.filter((standing) => standing.id !== id);
      return events.length === state.events.length ? state : { ...state, events };
    }
    case "chainHeadAdvanced":
      return state;
  }
}

/** Notes that a notification named this order id (its SUBMITTED record lives at the order's key). */
export function linkNotification(state: OrderState, notifiedTx: string): OrderState {
  return state.notifiedTx === notifiedTx ? state : { ...state, notifiedTx };
}

/** The last standing event of a kind (a reorganisation may briefly leave two; the later wins). */
export function standing<K extends StandingEvent["kind"]>(
  state: OrderState,
  kind: K,
): Extract<StandingEvent, { kind: K }> | undefined {
  for (let index = state.events.length - 1; index >= 0; index--) {
    const event = state.events[index]!;
    if (event.kind === kind) return event as Extract<StandingEvent, { kind: K }>;
  }
  return undefined;
}

/** The first byte of the binary form; the JSON form (version 1, still read) starts with `{`. */
const BINARY_V2 = 0x02;

/**
 * The stored form of `rm:{intents}:events:<orderId>` (keys.ts): byte 0x02, the notified transaction
 * (`<chainId>:<txHash>`, UTF-8, length-prefixed; length 0 when none), then each standing event in
 * the order applied as a length-prefixed protobuf IntentsChainEvent. Lengths are protobuf varints.
 * An event's bytes are its record's own (no re-encoding); its identity is derived again on parsing.
 */
export function serializeOrderState(state: OrderState): Buffer {
  const events = state.events.map(
    (standing) =>
      storedForms.get(standing.value) ??
      IntentsChainEvent.encode({
        event: { $case: standing.kind, value: standing.value } as IntentsChainEvent["event"],
      }).finish(),
  );
  const notified = state.notifiedTx === undefined ? undefined : Buffer.from(state.notifiedTx);
  let size = 1 + varintSize(notified?.length ?? 0) + (notified?.length ?? 0);
  for (const bytes of events) size += varintSize(bytes.length) + bytes.length;
  const out = Buffer.allocUnsafe(size);
  out[0] = BINARY_V2;
  let at = writeVarint(out, 1, notified?.length ?? 0);
  if (notified !== undefined) at += notified.copy(out, at);
  for (const bytes of events) {
    at = writeVarint(out, at, bytes.length);
    out.set(bytes, at);
    at += bytes.length;
  }
  return out;
}

/** Reads `rm:{intents}:events:<orderId>` in either stored form (binary, or the JSON of version 1). */
export function parseOrderState(orderId: string, stored: Uint8Array | null): OrderState {
  if (stored === null || stored.length === 0) return emptyOrderState(orderId);
  if (stored[0] !== BINARY_V2)
    return parseJsonOrderState(orderId, Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).toString());
  const events: StandingEvent[] = [];
  let [length, at] = readVarint(stored, 1, orderId);
  const notifiedTx = length === 0 ? undefined : Buffer.from(stored.buffer, stored.byteOffset + at, length).toString();
  at += length;
  while (at < stored.length) {
    [length, at] = readVarint(stored, at, orderId);
    if (at + length > stored.length) throw new DecodeError(`the stored events of order ${orderId} are cut short`);
    const bytes = stored.subarray(at, at + length);
    at += length;
    const event = IntentsChainEvent.decode(bytes).event;
    if (event === undefined || event.$case === "chainEventRemoved" || event.$case === "chainHeadAdvanced") continue;
    storedForms.set(event.value, bytes);
    events.push({ id: eventIdentity(event.value.ref), kind: event.$case, value: event.value } as StandingEvent);
  }
  return { orderId, events, ...(notifiedTx === undefined ? {} : { notifiedTx }) };
}

interface JsonOrderState {
  v: 1;
  events: { id: string; event: string }[];
  notifiedTx?: string;
}

/** Version 1: JSON, each event as base64 protobuf with its identity. */
function parseJsonOrderState(orderId: string, text: string): OrderState {
  let stored: JsonOrderState;
  try {
    stored = JSON.parse(text) as JsonOrderState;
  } catch (error) {
    throw new DecodeError(`the stored events of order ${orderId} are not JSON`, { cause: error });
  }
  const events: StandingEvent[] = [];
  for (const entry of stored.events) {
    const bytes = Buffer.from(entry.event, "base64");
    const event = IntentsChainEvent.decode(bytes).event;
    if (event === undefined || event.$case === "chainEventRemoved" || event.$case === "chainHeadAdvanced") continue;
    storedForms.set(event.value, bytes);
    events.push({ id: entry.id, kind: event.$case, value: event.value } as StandingEvent);
  }
  return { orderId, events, ...(stored.notifiedTx === undefined ? {} : { notifiedTx: stored.notifiedTx }) };
}

function varintSize(value: number): number {
  let size = 1;
  for (let rest = value >>> 7; rest > 0; rest >>>= 7) size += 1;
  return size;
}

function writeVarint(out: Uint8Array, at: number, value: number): number {
  let rest = value;
  while (rest > 0x7f) {
    out[at++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  out[at++] = rest;
  return at;
}

function readVarint(bytes: Uint8Array, start: number, orderId: string): [value: number, next: number] {
  let value = 0;
  let at = start;
  for (let shift = 0; shift < 35; shift += 7) {
    if (at >= bytes.length) break;
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, at];
  }
  throw new DecodeError(`the stored events of order ${orderId} are not readable`);
}
