/**
 * What one commit of the intents projection writes, decided purely from what it loaded and folded:
 * every loaded record derived anew, then only what differs from the stored keys (indexes included),
 * with the heads, the expiry watermarks and the offset, as the ops of one versioned commit.
 */
import type { ProjectionBatch } from "@platform/bus";
import type { IntentRecord } from "@platform/proto/intents/v1/intents";
import { intentsChangeLog, intentsKeys, placeholderSuffix, txId, versionOf } from "@platform/read-models";
import type { VersionedOp } from "@platform/store";
import {
  type DeriveContext,
  deriveOrderRecord,
  derivePlaceholderRecord,
  encodeRecord,
  placeholderOrderId,
  type StoredRecord,
  sameAsStored,
} from "./deriveRecord.js";
import { type GroupedWrites, groupedWrites } from "./groupedWrites.js";
import { type HeadState, headSeconds, headToHash } from "./heads.js";
import { type LoadedOrder, type LoadedTx, notificationOf } from "./loadedState.js";
import { serializeOrderState } from "./orderState.js";
import { indexChanges, recordIndexes } from "./recordIndexes.js";
import { txStateToHash } from "./txState.js";

/** Every loaded record derived anew, beside the stored one, by key suffix (an order id, or a placeholder's). */
export interface DerivedRecords {
  next: Map<string, IntentRecord | undefined>;
  previous: Map<string, StoredRecord | undefined>;
  /** The orders whose Opens each transaction holds. */
  openersOf: Map<string, string[]>;
  /** Each loaded transaction's order set. */
  txSets: Map<string, string[]>;
}

/** Derives every loaded record anew: the orders', and the placeholders of transactions that opened none. */
export function deriveRecords(
  orders: ReadonlyMap<string, LoadedOrder>,
  txs: ReadonlyMap<string, LoadedTx>,
  context: DeriveContext,
): DerivedRecords {
  const openersOf = openersByTx(orders);
  const next = new Map<string, IntentRecord | undefined>();
  const previous = new Map<string, StoredRecord | undefined>();
  orders.forEach((loaded, orderId) => {
    next.set(orderId, deriveOrderRecord(loaded.after, notificationOf(loaded.after, txs), context));
    previous.set(orderId, loaded.record);
  });
  const txSets = new Map<string, string[]>();
  for (const [tx, loaded] of txs) {
    const suffix = placeholderSuffix(loaded.chainId, loaded.txHash);
    previous.set(suffix, loaded.placeholder);
    next.set(suffix, undefined);
    const openers = openersOf.get(tx) ?? [];
    const placeholder = openers.length === 0 ? derivePlaceholderRecord(loaded.after, context) : undefined;
    if (placeholder !== undefined) {
      // Always readable by transaction; when the notification named the order, also (and only
      // there listed) under the order id, unless the order's own record stands there.
      next.set(suffix, placeholder);
      const namedOrder = placeholderOrderId(loaded.after);
      if (namedOrder !== undefined && next.get(namedOrder) === undefined) next.set(namedOrder, placeholder);
    }
    txSets.set(tx, openers);
  }
  return { next, previous, openersOf, txSets };
}

/** The orders whose Opens each transaction holds, by transaction id, each once. */
function openersByTx(orders: ReadonlyMap<string, LoadedOrder>): Map<string, string[]> {
  // (forEach rather than for…of over the maps: no entry array per step, in the hottest loops.)
  const openersOf = new Map<string, string[]>();
  orders.forEach((loaded, orderId) => {
    for (const event of loaded.after.events) {
      if (event.kind !== "orderOpened" || event.value.ref?.txHash === undefined) continue;
      const tx = txId(event.value.ref.chainId, event.value.ref.txHash);
      const openers = openersOf.get(tx);
      if (openers === undefined) openersOf.set(tx, [orderId]);
      else if (!openers.includes(orderId)) openers.push(orderId);
    }
  });
  return openersOf;
}

export interface WritesInput {
  orders: ReadonlyMap<string, LoadedOrder>;
  txs: ReadonlyMap<string, LoadedTx>;
  derived: DerivedRecords;
  /** The records' `updatedAt`. */
  stamp: string;
  /** Heads this transaction writes. */
  newHeads: ReadonlyMap<string, HeadState>;
  /** `rm:{intents}:chains` as read. */
  chains: readonly string[];
  /** The batch of a batch's own transaction: its watermarks are advanced and its offset stored. */
  batch: ProjectionBatch | undefined;
  offsetKey: string | undefined;
}

/** What a commit writes, and what its change signal names. */
export interface CommitWrites {
  ops: VersionedOp[];
  /** The record keys (suffixes) written. */
  changedKeys: string[];
  /** The users of those records, before and after. */
  users: Set<string>;
  /** The transactions whose state or order set changed. */
  changedTxs: string[];
}

/** Writes what differs, with the heads, the watermarks and the offset. */
export function queueWrites(input: WritesInput): CommitWrites {
  const writes = groupedWrites();
  queueOrderStates(writes, input.orders);
  const { changedKeys, users, changes } = queueRecords(writes, input.derived, input.stamp);
  const ops: VersionedOp[] = writes.ops();
  ops.push(...changes);
  const changedTxs = queueTxStates(ops, input.txs, input.derived);
  queueHeadsAndOffset(ops, input);
  return { ops, changedKeys, users, changedTxs };
}

/** The event logs of the orders the batch changed, where they differ from the stored ones. */
function queueOrderStates(writes: GroupedWrites, orders: ReadonlyMap<string, LoadedOrder>): void {
  orders.forEach((loaded, orderId) => {
    // An order the batch did not change keeps its stored state: skip serialising it.
    if (loaded.after === loaded.before) return;
    const empty = loaded.after.events.length === 0 && loaded.after.notifiedTx === undefined;
    const state = empty ? null : serializeOrderState(loaded.after);
    if (state === null ? loaded.storedState === null : loaded.storedState?.equals(state)) return;
    if (state === null) writes.del(intentsKeys.events(orderId));
    else writes.set(intentsKeys.events(orderId), state);
  });
}

/**
 * The records that differ from the stored ones, with their indexes and a change-log entry each; the
 * keys written and their users.
 */
function queueRecords(
  writes: GroupedWrites,
  derived: DerivedRecords,
  stamp: string,
): { changedKeys: string[]; users: Set<string>; changes: VersionedOp[] } {
  const changedKeys: string[] = [];
  const users = new Set<string>();
  const changes: VersionedOp[] = [];
  derived.next.forEach((record, suffix) => {
    const stored = derived.previous.get(suffix);
    if (sameAsStored(stored, record)) return;
    const before = stored?.record;
    changedKeys.push(suffix);
    const encoded = record === undefined ? undefined : encodeRecord({ ...record, updatedAt: stamp });
    if (encoded === undefined) writes.del(intentsKeys.order(suffix));
    else writes.set(intentsKeys.order(suffix), encoded);
    const statusChanged = before?.status !== record?.status;
    changes.push(changeEntry(suffix, record?.userAddress ?? before?.userAddress ?? "", encoded, statusChanged));
    const { remove, add } = indexChanges(recordIndexes(suffix, before), recordIndexes(suffix, record));
    for (const entry of remove) writes.zrem(entry.key, entry.member);
    for (const entry of add) writes.zadd(entry.key, entry.score, entry.member);
    if (before?.userAddress) users.add(before.userAddress);
    if (record?.userAddress) users.add(record.userAddress);
  });
  return { changedKeys, users, changes };
}

/** The change-log entry of a record written (libs/read-models changeLogs.ts). */
function changeEntry(suffix: string, user: string, encoded: Buffer | undefined, statusChanged: boolean): VersionedOp {
  const { fields, key, maxLength } = intentsChangeLog;
  return {
    op: "xadd",
    key,
    maxLength,
    fields: [
      fields.key,
      suffix,
      fields.user,
      user,
      fields.record,
      encoded ?? "",
      fields.statusChanged,
      statusChanged ? "1" : "0",
    ],
  };
}

/** The transactions' order sets and state hashes where they differ; the transactions changed. */
function queueTxStates(ops: VersionedOp[], txs: ReadonlyMap<string, LoadedTx>, derived: DerivedRecords): string[] {
  const changedTxs: string[] = [];
  for (const [tx, loaded] of txs) {
    const members = derived.txSets.get(tx) ?? [];
    const setKey = intentsKeys.tx(loaded.chainId, loaded.txHash);
    const added = members.filter((member) => !loaded.members.includes(member));
    const removed = loaded.members.filter((member) => !members.includes(member));
    if (removed.length > 0) ops.push({ op: "srem", key: setKey, members: removed });
    if (added.length > 0) ops.push({ op: "sadd", key: setKey, members: added });
    const hash = txStateToHash(loaded.after, (derived.openersOf.get(tx) ?? []).length > 0);
    const same = sameHash(hash ?? {}, loaded.storedHash);
    if (!same)
      ops.push({ op: "hreplace", key: intentsKeys.txState(loaded.chainId, loaded.txHash), fields: hash ?? {} });
    if (!same || added.length > 0 || removed.length > 0) changedTxs.push(tx);
  }
  return changedTxs;
}

/** Whether two hashes hold the same fields and values. */
function sameHash(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (a[key] !== b[key]) return false;
  return true;
}

/** The new heads (and chains first seen), the expiry watermarks and the offset of a batch's own transaction. */
function queueHeadsAndOffset(
  ops: VersionedOp[],
  { newHeads, chains, batch, offsetKey }: Pick<WritesInput, "newHeads" | "chains" | "batch" | "offsetKey">,
): void {
  for (const [chainId, head] of newHeads) {
    ops.push({ op: "hreplace", key: intentsKeys.head(chainId), fields: headToHash(head) });
    if (!chains.includes(chainId)) ops.push({ op: "sadd", key: intentsKeys.chains, members: [chainId] });
    // Every deadline up to this head's time now has the status this time gives it.
    if (batch !== undefined)
      ops.push({ op: "set", key: intentsKeys.expiry(chainId), value: String(headSeconds(head)) });
  }
  if (batch !== undefined && offsetKey !== undefined) ops.push({ op: "set", key: offsetKey, value: batch.lastOffset });
}

/** The versions (keys.ts versionOf) of everything `ops` write, each once; the offset has none. */
export function versionBumps(ops: readonly VersionedOp[], offsetKey: string | undefined): Set<string> {
  const bumps = new Set<string>();
  for (const op of ops) {
    const name = op.key === offsetKey ? undefined : versionOf(op.key);
    if (name !== undefined) bumps.add(name);
  }
  return bumps;
}
