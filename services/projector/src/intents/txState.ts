import { type IntentNotificationEvent, TxOutcome } from "@platform/proto/events/v1/intents_notifications";

export type Resolution = "SUCCEEDED" | "REVERTED" | "DROPPED";

/** One wallet's notification of a transaction. */
export interface Claim {
  userAddress: string;
  notifiedAt: string;
  orderId?: string;
}

/** What the projection knows of a notified transaction: the fold of intents.notifications.v1. */
export interface TxState {
  chainId: string;
  /** Lowercase. */
  txHash: string;
  /** The notification the records show: the first one, and once the sender is known, the sender's first. */
  notified?: Claim;
  /** Notifications by other wallets while the sender is not known yet, in arrival order; at most MAX_OTHER_CLAIMS. */
  otherClaims?: Claim[];
  /** Wallets whose claims the mined transaction's sender contradicted (for audit); at most MAX_OTHER_CLAIMS. */
  rejected?: string[];
  resolution?: { outcome: Resolution; resolvedAt: string; orderIds: string[]; txFrom?: string };
}

/** Claims kept beyond the first while the sender is unknown: each costs a T&C acceptance, but the hash must stay small. */
export const MAX_OTHER_CLAIMS = 4;

const outcomes: Partial<Record<TxOutcome, Resolution>> = {
  [TxOutcome.TX_OUTCOME_SUCCEEDED]: "SUCCEEDED",
  [TxOutcome.TX_OUTCOME_REVERTED]: "REVERTED",
  [TxOutcome.TX_OUTCOME_DROPPED]: "DROPPED",
};

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Applies one notification event. Any wallet that accepted the T&C can notify any hash, so a claim
 * is only believed as far as the chain bears it out: until the transaction is mined, the first
 * claim is shown and a few later ones by other wallets are kept; once a resolution names the
 * sender (`txFrom`, fixed by the hash), the sender's first claim is the one shown, whenever it
 * came, and the others are rejected (kept by address only). A repeat by the same wallet changes
 * nothing; a later resolution replaces an earlier one (mined after being declared dropped, or
 * moved by a reorganisation).
 */
export function evolveTx(state: TxState, payload: IntentNotificationEvent): TxState {
  const event = payload.event;
  if (event === undefined) return state;
  switch (event.$case) {
    case "intentNotified": {
      const { userAddress, notifiedAt, orderId } = event.value;
      return claim(state, { userAddress, notifiedAt, ...(orderId ? { orderId: orderId.toLowerCase() } : {}) });
    }
    case "notifiedTxResolved": {
      const outcome = outcomes[event.value.outcome];
      if (outcome === undefined) return state;
      // The sender is fixed by the hash: a later word without it (DROPPED after a reorganisation) keeps it.
      const txFrom = event.value.txFrom || state.resolution?.txFrom;
      const resolved: TxState = {
        ...state,
        resolution: {
          outcome,
          resolvedAt: event.value.resolvedAt,
          orderIds: event.value.orderIds.map((orderId) => orderId.toLowerCase()),
          ...(txFrom ? { txFrom } : {}),
        },
      };
      return txFrom ? decide(resolved, txFrom) : resolved;
    }
  }
}

function claim(state: TxState, next: Claim): TxState {
  const sender = state.resolution?.txFrom;
  if (sender !== undefined) {
    if (!sameAddress(next.userAddress, sender)) return withRejected(state, next.userAddress);
    // The sender's first claim wins over none (every earlier one was rejected).
    return state.notified === undefined ? { ...state, notified: next } : state;
  }
  if (state.notified === undefined) return { ...state, notified: next };
  const others = state.otherClaims ?? [];
  const seen =
    sameAddress(state.notified.userAddress, next.userAddress) ||
    others.some((other) => sameAddress(other.userAddress, next.userAddress));
  if (seen || others.length >= MAX_OTHER_CLAIMS) return state;
  return { ...state, otherClaims: [...others, next] };
}

/** The sender is known: its first claim is shown, every other wallet's claim is rejected. */
function decide(state: TxState, sender: string): TxState {
  const claims = [...(state.notified === undefined ? [] : [state.notified]), ...(state.otherClaims ?? [])];
  const winner = claims.find((candidate) => sameAddress(candidate.userAddress, sender));
  let decided: TxState = {
    chainId: state.chainId,
    txHash: state.txHash,
    ...(state.rejected ? { rejected: state.rejected } : {}),
    ...(state.resolution ? { resolution: state.resolution } : {}),
  };
  if (winner !== undefined) decided.notified = winner;
  for (const loser of claims) if (loser !== winner) decided = withRejected(decided, loser.userAddress);
  return decided;
}

function withRejected(state: TxState, userAddress: string): TxState {
  const rejected = state.rejected ?? [];
  if (rejected.length >= MAX_OTHER_CLAIMS || rejected.some((address) => sameAddress(address, userAddress)))
    return state;
  return { ...state, rejected: [...rejected, userAddress] };
}

/** The transaction's status for readers: SUCCEEDED once an Open of it stands, else what the notifications say. */
export function txStatus(state: TxState, opensStanding: boolean): "NOTIFIED" | Resolution {
  if (opensStanding) return "SUCCEEDED";
  return state.resolution?.outcome ?? "NOTIFIED";
}

/** The `rm:{intents}:txstate` hash; undefined for a transaction never notified (nothing to show). */
export function txStateToHash(state: TxState, opensStanding: boolean): Record<string, string> | undefined {
  if (
    state.notified === undefined &&
    state.resolution === undefined &&
    state.otherClaims === undefined &&
    state.rejected === undefined
  )
    return undefined;
  const hash: Record<string, string> = { status: txStatus(state, opensStanding) };
  if (state.notified !== undefined) {
    hash.userAddress = state.notified.userAddress;
    hash.notifiedAt = state.notified.notifiedAt;
    if (state.notified.orderId !== undefined) hash.orderId = state.notified.orderId;
  }
  if (state.otherClaims !== undefined && state.otherClaims.length > 0)
    hash.otherClaims = JSON.stringify(state.otherClaims);
  if (state.rejected !== undefined && state.rejected.length > 0) hash.rejectedClaims = state.rejected.join(",");
  if (state.resolution !== undefined) {
    hash.resolution = state.resolution.outcome;
    hash.resolvedAt = state.resolution.resolvedAt;
    if (state.resolution.orderIds.length > 0) hash.orderIds = state.resolution.orderIds.join(",");
    if (state.resolution.txFrom !== undefined) hash.txFrom = state.resolution.txFrom;
  }
  return hash;
}

export function txStateFromHash(chainId: string, txHash: string, hash: Record<string, string>): TxState {
  const state: TxState = { chainId, txHash };
  if (hash.userAddress !== undefined && hash.notifiedAt !== undefined) {
    state.notified = {
      userAddress: hash.userAddress,
      notifiedAt: hash.notifiedAt,
      ...(hash.orderId ? { orderId: hash.orderId } : {}),
    };
  }
  const others = parseClaims(hash.otherClaims);
  if (others.length > 0) state.otherClaims = others;
  if (hash.rejectedClaims) state.rejected = hash.rejectedClaims.split(",");
  const outcome = hash.resolution;
  if (outcome === "SUCCEEDED" || outcome === "REVERTED" || outcome === "DROPPED") {
    state.resolution = {
      outcome,
      resolvedAt: hash.resolvedAt ?? "",
      orderIds: hash.orderIds ? hash.orderIds.split(",") : [],
      ...(hash.txFrom ? { txFrom: hash.txFrom } : {}),
    };
  }
  return state;
}

/** The stored `otherClaims` field: written by txStateToHash only, but read defensively. */
function parseClaims(stored: string | undefined): Claim[] {
  if (!stored) return [];
  try {
    const parsed = JSON.parse(stored) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.flatMap((entry: unknown) => {
      const { userAddress, notifiedAt, orderId } = (entry ?? {}) as Partial<Claim>;
      if (typeof userAddress !== "string" || typeof notifiedAt !== "string") return [];
      return [{ userAddress, notifiedAt, ...(typeof orderId === "string" ? { orderId } : {}) }];
    });
  } catch {
    return [];
  }
}
