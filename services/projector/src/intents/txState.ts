import { TxOutcome, type IntentNotificationEvent } from "@platform/proto/events/v1/intents_notifications";

export type Resolution = "SUCCEEDED" | "REVERTED" | "DROPPED";

/** What the projection knows of a notified transaction: the fold of intents.notifications.v1. */
export interface TxState {
  chainId: string;
  /** Lowercase. */
  txHash: string;
  notified?: { userAddress: string; notifiedAt: string; orderId?: string };
  resolution?: { outcome: Resolution; resolvedAt: string; orderIds: string[] };
}

const outcomes: Partial<Record<TxOutcome, Resolution>> = {
  [TxOutcome.TX_OUTCOME_SUCCEEDED]: "SUCCEEDED",
  [TxOutcome.TX_OUTCOME_REVERTED]: "REVERTED",
  [TxOutcome.TX_OUTCOME_DROPPED]: "DROPPED",
};

/**
 * Applies one notification event. The first notification of a transaction is the one kept (only
 * the first is published; a replayed later one changes nothing); a later resolution replaces an
 * earlier one (mined after being declared dropped, or moved by a reorganisation).
 */
export function evolveTx(state: TxState, payload: IntentNotificationEvent): TxState {
  const event = payload.event;
  if (event === undefined) return state;
  switch (event.$case) {
    case "intentNotified": {
      if (state.notified !== undefined) return state;
      const { userAddress, notifiedAt, orderId } = event.value;
      return { ...state, notified: { userAddress, notifiedAt, ...(orderId ? { orderId: orderId.toLowerCase() } : {}) } };
    }
    case "notifiedTxResolved": {
      const outcome = outcomes[event.value.outcome];
      if (outcome === undefined) return state;
      return {
        ...state,
        resolution: { outcome, resolvedAt: event.value.resolvedAt, orderIds: event.value.orderIds.map((orderId) => orderId.toLowerCase()) },
      };
    }
  }
}

/** The transaction's status for readers: SUCCEEDED once an Open of it stands, else what the notifications say. */
export function txStatus(state: TxState, opensStanding: boolean): "NOTIFIED" | Resolution {
  if (opensStanding) return "SUCCEEDED";
  return state.resolution?.outcome ?? "NOTIFIED";
}

/** The `rm:intents:txstate` hash; undefined for a transaction never notified (nothing to show). */
export function txStateToHash(state: TxState, opensStanding: boolean): Record<string, string> | undefined {
  if (state.notified === undefined && state.resolution === undefined) return undefined;
  const hash: Record<string, string> = { status: txStatus(state, opensStanding) };
  if (state.notified !== undefined) {
    hash.userAddress = state.notified.userAddress;
    hash.notifiedAt = state.notified.notifiedAt;
    if (state.notified.orderId !== undefined) hash.orderId = state.notified.orderId;
  }
  if (state.resolution !== undefined) {
    hash.resolution = state.resolution.outcome;
    hash.resolvedAt = state.resolution.resolvedAt;
    if (state.resolution.orderIds.length > 0) hash.orderIds = state.resolution.orderIds.join(",");
  }
  return hash;
}

export function txStateFromHash(chainId: string, txHash: string, hash: Record<string, string>): TxState {
  const state: TxState = { chainId, txHash };
  if (hash.userAddress !== undefined && hash.notifiedAt !== undefined) {
    state.notified = { userAddress: hash.userAddress, notifiedAt: hash.notifiedAt, ...(hash.orderId ? { orderId: hash.orderId } : {}) };
  }
  const outcome = hash.resolution;
  if (outcome === "SUCCEEDED" || outcome === "REVERTED" || outcome === "DROPPED") {
    state.resolution = { outcome, resolvedAt: hash.resolvedAt ?? "", orderIds: hash.orderIds ? hash.orderIds.split(",") : [] };
  }
  return state;
}
