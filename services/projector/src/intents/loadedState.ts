/**
 * The orders and transactions one commit of the intents projection loads, and the pure steps over
 * them: what a batch touches, how the loaded state is read and parsed, how the batch folds into it
 * and what else the folded records depend on.
 */
import { IntentRecord } from "@platform/proto/intents/v1/intents";
import { idPrefixes, txId } from "@platform/read-models";
import type { EntityGroup, EntityValue } from "@platform/store";
import type { BatchChange } from "./decodeBatch.js";
import type { StoredRecord } from "./deriveRecord.js";
import { evolveOrderFromRecord, linkNotification, type OrderState, parseOrderState } from "./orderState.js";
import { evolveTx, type TxState, txStateFromHash } from "./txState.js";

export interface LoadedOrder {
  before: OrderState;
  after: OrderState;
  /** `rm:{intents}:events:<orderId>` as read. */
  storedState: Buffer | null;
  record: StoredRecord | undefined;
}

export interface LoadedTx {
  chainId: string;
  txHash: string;
  before: TxState;
  after: TxState;
  storedHash: Record<string, string>;
  members: string[];
  placeholder: StoredRecord | undefined;
}

/** The orders and transactions a commit loads in its first round: `orders`, and those its records touch. */
export function touchedBy(
  changes: readonly BatchChange[],
  orders: readonly string[],
): { orders: Set<string>; txs: Set<string> } {
  const dirtyOrders = new Set<string>(orders);
  const dirtyTxs = new Set<string>();
  for (const change of changes) {
    if (change.kind === "order") {
      dirtyOrders.add(change.orderId);
      // An Open's transaction is loaded anyway (forEachLinkedTx): in the first round, not a second.
      const event = change.payload.event;
      if (event?.$case === "orderOpened" && event.value.ref?.txHash !== undefined)
        dirtyTxs.add(txId(event.value.ref.chainId, event.value.ref.txHash));
    }
    if (change.kind === "tx") {
      dirtyTxs.add(change.tx);
      if (change.payload.event?.$case === "intentNotified" && change.payload.event.value.orderId)
        dirtyOrders.add(change.payload.event.value.orderId.toLowerCase());
    }
  }
  return { orders: dirtyOrders, txs: dirtyTxs };
}

/**
 * The reads of the given orders' and transactions' state, as two entity groups of one read script
 * (@platform/store readVersioned): an order's events and record under its version, a transaction's
 * placeholder record, state hash and order set under its. Only what exists comes back, so the
 * orders and transactions of a backlog of new Opens cost next to nothing to read.
 */
export function loadCommands(orderIds: readonly string[], txIds: readonly string[]) {
  const parsedTxs = txIds.map((tx) => {
    const at = tx.indexOf(":");
    return { tx, chainId: tx.slice(0, at), txHash: tx.slice(at + 1) };
  });
  const groups: EntityGroup[] = [];
  if (orderIds.length > 0)
    groups.push({ reads: ORDER_READS, namePrefix: idPrefixes.order.version, keyPrefixes: ORDER_KEYS, ids: orderIds });
  if (txIds.length > 0)
    groups.push({ reads: TX_READS, namePrefix: idPrefixes.tx.version, keyPrefixes: TX_KEYS, ids: txIds });
  const parse = (
    answers: readonly Map<number, EntityValue[]>[],
    orders: Map<string, LoadedOrder>,
    txs: Map<string, LoadedTx>,
  ): void => {
    const orderAnswers = orderIds.length === 0 ? undefined : answers[0];
    const txAnswers = parsedTxs.length === 0 ? undefined : answers[orderIds.length === 0 ? 0 : 1];
    orderIds.forEach((orderId, index) => {
      const [events, record] = (orderAnswers?.get(index) ?? [null, null]) as [Buffer | null, Buffer | null];
      const state = parseOrderState(orderId, events);
      orders.set(orderId, { before: state, after: state, storedState: events, record: decodeRecord(record) });
    });
    parsedTxs.forEach(({ tx, chainId, txHash }, index) => {
      const [placeholder, hash, members] = (txAnswers?.get(index) ?? [null, {}, []]) as [
        Buffer | null,
        Record<string, string>,
        string[],
      ];
      const state = txStateFromHash(chainId, txHash, hash);
      txs.set(tx, {
        chainId,
        txHash,
        before: state,
        after: state,
        storedHash: hash,
        members,
        placeholder: decodeRecord(placeholder),
      });
    });
  };
  return { groups, parse };
}

/** An order's events and record; a transaction's placeholder record, state hash and order set. */
const ORDER_READS = ["get", "get"] as const;
const ORDER_KEYS = [idPrefixes.order.events, idPrefixes.order.record];
const TX_READS = ["get", "hgetall", "smembers"] as const;
const TX_KEYS = [idPrefixes.tx.placeholder, idPrefixes.tx.state, idPrefixes.tx.orders];

function decodeRecord(bytes: Buffer | null): StoredRecord | undefined {
  return bytes === null ? undefined : { record: IntentRecord.decode(bytes), bytes };
}

/** Folds a batch's events into the loaded states of their orders and transactions. */
export function foldChanges(
  changes: readonly BatchChange[],
  orders: Map<string, LoadedOrder>,
  txs: Map<string, LoadedTx>,
): void {
  for (const change of changes) {
    if (change.kind === "order") {
      const loaded = orders.get(change.orderId)!;
      loaded.after = evolveOrderFromRecord(loaded.after, change.payload, change.stored);
    } else if (change.kind === "tx") {
      const loaded = txs.get(change.tx)!;
      loaded.after = evolveTx(loaded.after, change.payload);
      const event = change.payload.event;
      if (event?.$case === "intentNotified" && event.value.orderId) {
        const named = orders.get(event.value.orderId.toLowerCase())!;
        named.after = linkNotification(named.after, change.tx);
      }
    }
  }
}

/** What the loaded records depend on and is not loaded yet: their transactions, and those transactions' orders. */
export function dependenciesOf(
  orders: ReadonlyMap<string, LoadedOrder>,
  txs: ReadonlyMap<string, LoadedTx>,
): { orders: string[]; txs: string[] } {
  const moreTxs = new Set<string>();
  const moreOrders = new Set<string>();
  const needTx = (tx: string) => {
    if (!txs.has(tx)) moreTxs.add(tx);
  };
  const needOrder = (orderId: string | undefined) => {
    if (orderId !== undefined && !orders.has(orderId)) moreOrders.add(orderId);
  };
  orders.forEach((loaded) => {
    forEachLinkedTx(loaded.before, needTx);
    if (loaded.after !== loaded.before) forEachLinkedTx(loaded.after, needTx);
  });
  txs.forEach((loaded) => {
    for (const orderId of loaded.members) needOrder(orderId);
    needOrder(loaded.before.notified?.orderId);
    needOrder(loaded.after.notified?.orderId);
  });
  return { orders: [...moreOrders], txs: [...moreTxs] };
}

/** Calls `each` with the transactions an order's record depends on: where its Opens came from, and who named it (a repeat is possible). */
function forEachLinkedTx(state: OrderState, each: (tx: string) => void): void {
  for (const event of state.events) {
    if (event.kind === "orderOpened" && event.value.ref?.txHash !== undefined)
      each(txId(event.value.ref.chainId, event.value.ref.txHash));
  }
  if (state.notifiedTx !== undefined) each(state.notifiedTx);
}

/** The first linked transaction (forEachLinkedTx's order) that was notified: the order's notification. */
export function notificationOf(state: OrderState, txs: ReadonlyMap<string, LoadedTx>): TxState | undefined {
  let found: TxState | undefined;
  forEachLinkedTx(state, (tx) => {
    const after = txs.get(tx)?.after;
    if (found === undefined && after?.notified !== undefined) found = after;
  });
  return found;
}
