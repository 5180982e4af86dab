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
 * The IntentsChainEvent bytes (base64) an event's value was decoded from, so serialising stores
 * them as they are instead of encoding the value again. Values are never mutated, so the bytes
 * stay right; an event without an entry is encoded.
 */
const storedForms = new WeakMap<object, string>();

/** What the projection knows of one order: the fold of its events (`rm:intents:events:<orderId>`). */
export interface OrderState {
  orderId: string;
  /** In the order they were applied. */
  events: StandingEvent[];
  /** `<chainId>:<txHash>` of a notification that named this order id. */
  notifiedTx?: string;
}

/** The identity of a chain event: (chain_id, block_hash, tx_hash, log_index). */
export function eventIdentity(ref: ChainRef | undefined): string {
  if (ref === undefined) throw new Error("chain event without a chain reference");
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

/** evolveOrder for an event read from its record: `stored` (the record's bytes, base64) is kept as its stored form. */
export function evolveOrderFromRecord(state: OrderState, payload: IntentsChainEvent, stored: string | undefined): OrderState {
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
export function standing<K extends StandingEvent["kind"]>(state: OrderState, kind: K): Extract<StandingEvent, { kind: K }> | undefined {
  for (let index = state.events.length - 1; index >= 0; index--) {
    const event = state.events[index]!;
    if (event.kind === kind) return event as Extract<StandingEvent, { kind: K }>;
  }
  return undefined;
}

interface StoredOrderState {
  v: 1;
  events: { id: string; event: string }[];
  notifiedTx?: string;
}

/** JSON for `rm:intents:events:<orderId>`: each event as base64 protobuf, so nothing is lost in between. */
export function serializeOrderState(state: OrderState): string {
  const stored: StoredOrderState = {
    v: 1,
    events: state.events.map((standing) => ({
      id: standing.id,
      event:
        storedForms.get(standing.value) ??
        Buffer.from(IntentsChainEvent.encode({ event: { $case: standing.kind, value: standing.value } as IntentsChainEvent["event"] }).finish()).toString("base64"),
    })),
    ...(state.notifiedTx === undefined ? {} : { notifiedTx: state.notifiedTx }),
  };
  return JSON.stringify(stored);
}

export function parseOrderState(orderId: string, text: string | null): OrderState {
  if (text === null) return emptyOrderState(orderId);
  let stored: StoredOrderState;
  try {
    stored = JSON.parse(text) as StoredOrderState;
  } catch (error) {
    throw new Error(`the stored events of order ${orderId} are not JSON`, { cause: error });
  }
  const events: StandingEvent[] = [];
  for (const entry of stored.events) {
    const event = IntentsChainEvent.decode(Buffer.from(entry.event, "base64")).event;
    if (event === undefined || event.$case === "chainEventRemoved" || event.$case === "chainHeadAdvanced") continue;
    storedForms.set(event.value, entry.event);
    events.push({ id: entry.id, kind: event.$case, value: event.value } as StandingEvent);
  }
  return { orderId, events, ...(stored.notifiedTx === undefined ? {} : { notifiedTx: stored.notifiedTx }) };
}
