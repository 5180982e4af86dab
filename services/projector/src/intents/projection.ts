import type { ProjectionBatch } from "@platform/bus";
import type { Logger } from "@platform/log";
import { IntentRecord, IntentStatus } from "@platform/proto/intents/v1/intents";
import { subjects, type Signals } from "@platform/signals";
import type { Redis } from "@platform/store";
import { decodeBatch, type BatchChange } from "./decodeBatch.js";
import { deriveOrderRecord, derivePlaceholderRecord, placeholderOrderId, sameRecord, type DeriveContext } from "./deriveRecord.js";
import { headFromHash, headSeconds, headToHash, type HeadState } from "./heads.js";
import { intentsKeys, placeholderSuffix, txId } from "./keys.js";
import { evolveOrderFromRecord, linkNotification, parseOrderState, serializeOrderState, type OrderState } from "./orderState.js";
import { groupedWrites } from "./groupedWrites.js";
import { indexChanges, recordIndexes } from "./recordIndexes.js";
import { evolveTx, txStateFromHash, txStateToHash, type TxState } from "./txState.js";

export interface IntentsProjectionOptions {
  /** A connection of the projection's own: WATCH belongs to the connection. */
  redis: Redis;
  log: Logger;
  /** FullSettler's REFUND_GRACE (seconds), for refundable_at. */
  refundGraceSeconds: number;
  /** `readmodel.changed.intents` goes out here after each commit. */
  signals?: Signals;
  /** Attempts of a batch whose watched keys another projector changed meanwhile; 5 by default. */
  maxAttempts?: number;
  /** Orders per transaction when a head step reaches many at once; 500 by default. */
  chunkSize?: number;
  /**
   * Records per transaction: a larger batch is applied in consecutive transactions, each storing
   * the offset of its last record (so each is exactly-once on its own). WATCH costs grow with the
   * square of the watched keys in Redis, so this bounds them; 200 by default.
   */
  recordsPerTransaction?: number;
}

export interface IntentsProjection {
  loadOffsets(topic: string, partition: number): Promise<string | undefined>;
  handleBatch(batch: ProjectionBatch): Promise<void>;
}

interface LoadedOrder {
  before: OrderState;
  after: OrderState;
  storedText: string | null;
  record: IntentRecord | undefined;
}

interface LoadedTx {
  chainId: string;
  txHash: string;
  before: TxState;
  after: TxState;
  storedHash: Record<string, string>;
  members: string[];
  placeholder: IntentRecord | undefined;
}

/** At most this many names per kind in a change signal. */
const SIGNAL_LIMIT = 500;

/**
 * The intents projection: folds chain.intents.v1 and intents.notifications.v1 into the read model
 * of keys.ts, exactly once per record. A batch is applied in transactions of at most
 * `recordsPerTransaction` records, each storing its last offset; each of them:
 *
 * 1. when it carries chain heads that reach many orders (deadlines passed, steps made safe or
 *    final), brings those orders up to the new heads first, in bounded transactions (catchUpHeads);
 * 2. watches and checks the partition's stored offset against the batch's previous offset;
 * 3. loads (watching each key first) the orders, transactions and heads the batch touches, the
 *    orders its heads still reach, and, until nothing new turns up, the transactions those orders
 *    came from and the orders of those transactions (a record shows its notification; a
 *    transaction's record depends on its Opens);
 * 4. folds the batch's events into their states with the pure evolve functions, derives every
 *    loaded record anew, and writes only what differs, indexes included, with the heads and the
 *    offset, in one MULTI/EXEC. A watched key changed by another projector (a rebalance overlap,
 *    or another partition's batch touching the same order) makes EXEC fail: the batch is read
 *    again.
 */
export function intentsProjection(options: IntentsProjectionOptions): IntentsProjection {
  const { redis, log } = options;
  const maxAttempts = options.maxAttempts ?? 5;
  const chunkSize = options.chunkSize ?? 500;
  const recordsPerTransaction = options.recordsPerTransaction ?? 200;

  /** Every known chain's stored head (watched first when the caller writes on the strength of it). */
  const readHeads = async (watch: boolean, also: Iterable<string>): Promise<Map<string, HeadState>> => {
    const chainIds = [...new Set([...(await redis.smembers(intentsKeys.chains)), ...also])];
    if (watch && chainIds.length > 0) await redis.watch(...chainIds.map(intentsKeys.head));
    const hashes = await pipelined(redis, chainIds.map((chainId) => ["hgetall", intentsKeys.head(chainId)]));
    const heads = new Map<string, HeadState>();
    chainIds.forEach((chainId, index) => {
      const head = headFromHash(chainId, (hashes[index] ?? {}) as Record<string, string>);
      if (head !== undefined) heads.set(chainId, head);
    });
    return heads;
  };

  /**
   * The orders a head step must re-derive: those whose deadline lies between the chain's expiry
   * watermark and its new head time and whose stored status disagrees with that time (OPEN past
   * the deadline, or EXPIRED before it after a reorganisation moved the head back), and those with
   * a step the new safe / finalized numbers reached.
   */
  const headReached = async (heads: ReadonlyMap<string, HeadState>, headChains: ReadonlySet<string>, watch: boolean): Promise<string[]> => {
    const chains = [...headChains];
    if (chains.length === 0) return [];
    const watermarkKeys = chains.map(intentsKeys.expiry);
    if (watch) {
      await redis.watch(...watermarkKeys, ...chains.flatMap((chainId) => [intentsKeys.deadlines(chainId), intentsKeys.unsafe(chainId), intentsKeys.unfinalized(chainId)]));
    }
    const watermarks = await pipelined(redis, watermarkKeys.map((key) => ["get", key]));
    const lookups: string[][] = [];
    const times: number[] = [];
    chains.forEach((chainId, index) => {
      const head = heads.get(chainId)!;
      const now = headSeconds(head);
      const stored = watermarks[index] as string | null;
      const watermark = stored === null ? undefined : Number(stored);
      times.push(now);
      // Deadlines between the watermark and the head time are the only ones whose status can flip.
      if (watermark === undefined) lookups.push(["zrangebyscore", intentsKeys.deadlines(chainId), "-inf", `(${now}`]);
      else if (now >= watermark) lookups.push(["zrangebyscore", intentsKeys.deadlines(chainId), String(watermark), `(${now}`]);
      else lookups.push(["zrangebyscore", intentsKeys.deadlines(chainId), String(now), `(${watermark}`]);
    });
    const finality: string[][] = chains.flatMap((chainId) => {
      const head = heads.get(chainId)!;
      return [
        ...(head.safeBlockNumber === undefined ? [] : [["zrangebyscore", intentsKeys.unsafe(chainId), "-inf", head.safeBlockNumber]]),
        ...(head.finalizedBlockNumber === undefined ? [] : [["zrangebyscore", intentsKeys.unfinalized(chainId), "-inf", head.finalizedBlockNumber]]),
      ];
    });
    const [deadlineHits, finalityHits] = [(await pipelined(redis, lookups)) as string[][], (await pipelined(redis, finality)) as string[][]];
    const reached = new Set<string>(finalityHits.flat());
    const candidates = deadlineHits.flatMap((members, index) => members.map((orderId) => ({ orderId, now: times[index]! })));
    const records = candidates.length === 0 ? [] : await redis.mgetBuffer(...candidates.map((candidate) => intentsKeys.order(candidate.orderId)));
    candidates.forEach((candidate, index) => {
      const bytes = records[index];
      if (bytes === null || bytes === undefined) return;
      const record = IntentRecord.decode(bytes);
      if (record.fillDeadline === undefined) return;
      const expired = candidate.now > record.fillDeadline;
      if ((record.status === IntentStatus.INTENT_STATUS_OPEN && expired) || (record.status === IntentStatus.INTENT_STATUS_EXPIRED && !expired)) reached.add(candidate.orderId);
    });
    return [...reached];
  };

  /**
   * One MULTI/EXEC: watches and loads what `changes` and `orders` touch (and, when `batch` is set,
   * checks its offset and re-derives what its heads reach), folds the changes, derives every loaded
   * record anew and writes what differs, with `heads`, the expiry watermarks and the offset.
   */
  const commit = async (input: {
    changes: readonly BatchChange[];
    orders: readonly string[];
    /** Heads this transaction writes (the batch's newest per chain). */
    newHeads: ReadonlyMap<string, HeadState>;
    /** The batch itself: its offset is checked and stored, and the expiry watermarks advanced. */
    batch?: ProjectionBatch;
    stamp: string;
  }): Promise<"committed" | "conflict"> => {
    const started = performance.now();
    const { batch, changes, newHeads } = input;
    const offsetKey = batch === undefined ? undefined : intentsKeys.offset(batch.topic, batch.partition);
    await redis.watch(...(offsetKey === undefined ? [] : [offsetKey]), intentsKeys.chains);
    let executed = false;
    try {
      if (batch !== undefined && offsetKey !== undefined) {
        const stored = (await redis.get(offsetKey)) ?? undefined;
        if (stored !== batch.previousOffset) {
          throw new Error(`stored offset of ${batch.topic}/${batch.partition} is ${stored ?? "none"}, the batch continues from ${batch.previousOffset ?? "none"}`);
        }
      }
      const headChains = new Set(newHeads.keys());
      const heads = await readHeads(true, headChains);
      for (const [chainId, head] of newHeads) heads.set(chainId, head);

      const dirtyOrders = new Set<string>(input.orders);
      const dirtyTxs = new Set<string>();
      if (batch !== undefined) for (const orderId of await headReached(heads, headChains, true)) dirtyOrders.add(orderId);
      for (const change of changes) {
        if (change.kind === "order") {
          dirtyOrders.add(change.orderId);
          // An Open's transaction is loaded anyway (linkedTxs): in the first round, not a second.
          const event = change.payload.event;
          if (event?.$case === "orderOpened" && event.value.ref?.txHash !== undefined) dirtyTxs.add(txId(event.value.ref.chainId, event.value.ref.txHash));
        }
        if (change.kind === "tx") {
          dirtyTxs.add(change.tx);
          if (change.payload.event?.$case === "intentNotified" && change.payload.event.value.orderId) dirtyOrders.add(change.payload.event.value.orderId.toLowerCase());
        }
      }

      // Load what the batch touches, then fold the batch into it.
      const orders = new Map<string, LoadedOrder>();
      const txs = new Map<string, LoadedTx>();
      await loadRound(redis, [...dirtyOrders], [...dirtyTxs], orders, txs);
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
      // Then what those records depend on, until nothing new turns up.
      for (;;) {
        const moreTxs = new Set<string>();
        const moreOrders = new Set<string>();
        for (const loaded of orders.values()) {
          for (const tx of linkedTxs(loaded.before).concat(linkedTxs(loaded.after))) if (!txs.has(tx)) moreTxs.add(tx);
        }
        for (const loaded of txs.values()) {
          const named = [loaded.before.notified?.orderId, loaded.after.notified?.orderId].filter((id): id is string => id !== undefined);
          for (const orderId of [...loaded.members, ...named]) if (!orders.has(orderId)) moreOrders.add(orderId);
        }
        if (moreTxs.size === 0 && moreOrders.size === 0) break;
        await loadRound(redis, [...moreOrders], [...moreTxs], orders, txs);
      }

      // Derive every loaded record anew.
      const context: DeriveContext = { heads, refundGraceSeconds: options.refundGraceSeconds };
      const openersOf = new Map<string, string[]>();
      for (const [orderId, loaded] of orders) {
        for (const event of loaded.after.events) {
          if (event.kind !== "orderOpened" || event.value.ref?.txHash === undefined) continue;
          const tx = txId(event.value.ref.chainId, event.value.ref.txHash);
          openersOf.set(tx, [...(openersOf.get(tx) ?? []), orderId]);
        }
      }
      const next = new Map<string, IntentRecord | undefined>();
      const previous = new Map<string, IntentRecord | undefined>();
      for (const [orderId, loaded] of orders) {
        const notification = linkedTxs(loaded.after)
          .map((tx) => txs.get(tx)?.after)
          .find((state) => state?.notified !== undefined);
        next.set(orderId, deriveOrderRecord(loaded.after, notification, context));
        previous.set(orderId, loaded.record);
      }
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

      // Write what differs, with the heads, the watermarks and the offset.
      const multi = redis.multi();
      const writes = groupedWrites();
      const changedKeys: string[] = [];
      const users = new Set<string>();
      for (const [orderId, loaded] of orders) {
        // An order the batch did not change keeps its stored text: skip serialising it.
        if (loaded.after === loaded.before) continue;
        const empty = loaded.after.events.length === 0 && loaded.after.notifiedTx === undefined;
        const text = empty ? null : serializeOrderState(loaded.after);
        if (text === loaded.storedText) continue;
        if (text === null) writes.del(intentsKeys.events(orderId));
        else writes.set(intentsKeys.events(orderId), text);
      }
      for (const [suffix, record] of next) {
        const before = previous.get(suffix);
        if (sameRecord(before, record)) continue;
        changedKeys.push(suffix);
        if (record === undefined) writes.del(intentsKeys.order(suffix));
        else writes.set(intentsKeys.order(suffix), Buffer.from(IntentRecord.encode({ ...record, updatedAt: input.stamp }).finish()));
        const { remove, add } = indexChanges(recordIndexes(suffix, before), recordIndexes(suffix, record));
        for (const entry of remove) writes.zrem(entry.key, entry.member);
        for (const entry of add) writes.zadd(entry.key, entry.score, entry.member);
        for (const user of [before?.userAddress, record?.userAddress]) if (user) users.add(user);
      }
      writes.queueOn(multi);
      const changedTxs: string[] = [];
      for (const [tx, loaded] of txs) {
        const members = txSets.get(tx) ?? [];
        const setKey = intentsKeys.tx(loaded.chainId, loaded.txHash);
        const added = members.filter((member) => !loaded.members.includes(member));
        const removed = loaded.members.filter((member) => !members.includes(member));
        if (removed.length > 0) multi.srem(setKey, ...removed);
        if (added.length > 0) multi.sadd(setKey, ...added);
        const hash = txStateToHash(loaded.after, (openersOf.get(tx) ?? []).length > 0);
        const stateKey = intentsKeys.txState(loaded.chainId, loaded.txHash);
        const same = JSON.stringify(Object.entries(hash ?? {}).sort()) === JSON.stringify(Object.entries(loaded.storedHash).sort());
        if (!same) {
          multi.del(stateKey);
          if (hash !== undefined) multi.hset(stateKey, hash);
        }
        if (!same || added.length > 0 || removed.length > 0) changedTxs.push(tx);
      }
      for (const [chainId, head] of newHeads) {
        multi.del(intentsKeys.head(chainId));
        multi.hset(intentsKeys.head(chainId), headToHash(head));
        multi.sadd(intentsKeys.chains, chainId);
        // Every deadline up to this head's time now has the status this time gives it.
        if (batch !== undefined) multi.set(intentsKeys.expiry(chainId), String(headSeconds(head)));
      }
      if (batch !== undefined && offsetKey !== undefined) multi.set(offsetKey, batch.lastOffset);
      const results = await multi.exec();
      executed = true;
      if (results === null) return "conflict";
      const failed = results.find(([error]) => error !== null);
      if (failed) throw new Error(`intents read-model write failed${batch === undefined ? "" : ` for ${batch.topic}/${batch.partition}`}`, { cause: failed[0] });
      if (changedKeys.length > 0 || changedTxs.length > 0) signalChange(changedKeys, [...users], changedTxs);
      log.debug(
        { topic: batch?.topic, partition: batch?.partition, records: batch?.messages.length ?? 0, orders: orders.size, transactions: txs.size, changed: changedKeys.length, ms: Math.round(performance.now() - started) },
        batch === undefined ? "intents head step applied to a chunk of orders" : "intents batch applied",
      );
      return "committed";
    } finally {
      if (!executed) await redis.unwatch().catch(() => undefined);
    }
  };

  const signalChange = (orderKeys: string[], users: string[], transactions: string[]): void => {
    const truncated = orderKeys.length > SIGNAL_LIMIT || users.length > SIGNAL_LIMIT || transactions.length > SIGNAL_LIMIT;
    options.signals?.publish(subjects.readModelChanged("intents"), {
      orderKeys: orderKeys.slice(0, SIGNAL_LIMIT),
      users: users.slice(0, SIGNAL_LIMIT),
      transactions: transactions.slice(0, SIGNAL_LIMIT),
      truncated,
    });
  };

  /**
   * A head step can reach many orders at once (all orders of a backlog become final together, or
   * share a deadline). WATCH costs grow with the square of the watched keys in Redis, so those
   * orders are brought up to the new head in transactions of `chunkSize` orders first, each also
   * storing the new head (so other partitions derive with it from then on); the batch's own
   * transaction then handles what is left, advances the expiry watermark and stores the offset.
   * A crash in between only repeats work: the watermark and the finality indexes still name every
   * order not yet brought up to date.
   */
  const catchUpHeads = async (newHeads: ReadonlyMap<string, HeadState>, stamp: string): Promise<void> => {
    if (newHeads.size === 0) return;
    const headChains = new Set(newHeads.keys());
    for (let round = 0; round < 10_000; round++) {
      const heads = await readHeads(false, headChains);
      for (const [chainId, head] of newHeads) heads.set(chainId, head);
      const reached = await headReached(heads, headChains, false);
      if (reached.length <= chunkSize) return;
      await commit({ changes: [], orders: reached.slice(0, chunkSize), newHeads, stamp });
    }
  };

  return {
    async loadOffsets(topic, partition) {
      return (await redis.get(intentsKeys.offset(topic, partition))) ?? undefined;
    },
    async handleBatch(batch) {
      // Consecutive transactions, each continuing from the offset the one before stored.
      let previousOffset = batch.previousOffset;
      // At least one transaction, so even an empty batch has its offset checked.
      for (let start = 0; start === 0 || start < batch.messages.length; start += recordsPerTransaction) {
        const messages = batch.messages.slice(start, start + recordsPerTransaction);
        const last = start + recordsPerTransaction >= batch.messages.length;
        const part: ProjectionBatch = { ...batch, messages, lastOffset: last ? batch.lastOffset : messages.at(-1)!.offset, previousOffset };
        await applyBatch(part);
        previousOffset = part.lastOffset;
        if (!last) await batch.heartbeat().catch(() => undefined);
      }
    },
  };

  /** One transaction's worth of records: heads caught up first, then the records with their offset. */
  async function applyBatch(batch: ProjectionBatch): Promise<void> {
    const changes = decodeBatch(batch.messages, log);
    const stamp = new Date(Number(batch.messages.at(-1)?.timestamp ?? Date.now())).toISOString();
    const newHeads = new Map<string, HeadState>();
    for (const change of changes) if (change.kind === "head") newHeads.set(change.head.chainId, change.head);
    for (let attempt = 1; ; attempt++) {
      await catchUpHeads(newHeads, stamp);
      if ((await commit({ changes, orders: [], newHeads, batch, stamp })) === "committed") return;
      if (attempt >= maxAttempts) throw new Error(`the intents read model kept changing under batch ${batch.topic}/${batch.partition}@${batch.lastOffset}`);
      log.debug({ topic: batch.topic, partition: batch.partition, attempt }, "watched intents keys changed during the batch; applying it again");
      await batch.heartbeat().catch(() => undefined);
    }
  }
}

/** The transactions an order's record depends on: where its Opens came from, and who named it. */
function linkedTxs(state: OrderState): string[] {
  const txs: string[] = [];
  for (const event of state.events) {
    if (event.kind === "orderOpened" && event.value.ref?.txHash !== undefined) txs.push(txId(event.value.ref.chainId, event.value.ref.txHash));
  }
  if (state.notifiedTx !== undefined) txs.push(state.notifiedTx);
  return [...new Set(txs)];
}

/** Watches, then reads, the state of the given orders and transactions into the maps. */
async function loadRound(
  redis: Redis,
  orderIds: readonly string[],
  txIds: readonly string[],
  orders: Map<string, LoadedOrder>,
  txs: Map<string, LoadedTx>,
): Promise<void> {
  const parsedTxs = txIds.map((tx) => {
    const at = tx.indexOf(":");
    return { tx, chainId: tx.slice(0, at), txHash: tx.slice(at + 1) };
  });
  const watched = [
    ...orderIds.flatMap((orderId) => [intentsKeys.events(orderId), intentsKeys.order(orderId)]),
    ...parsedTxs.flatMap(({ chainId, txHash }) => [
      intentsKeys.txState(chainId, txHash),
      intentsKeys.tx(chainId, txHash),
      intentsKeys.order(placeholderSuffix(chainId, txHash)),
    ]),
  ];
  if (watched.length === 0) return;
  await redis.watch(...watched);
  // Strings by MGET (one command each for the events, the records, the placeholders), the
  // per-transaction hashes and sets one command each, all in one round trip.
  const commands: (readonly string[])[] = [
    ...(orderIds.length === 0 ? [] : [["mget", ...orderIds.map(intentsKeys.events)], ["mgetBuffer", ...orderIds.map(intentsKeys.order)]]),
    ...(parsedTxs.length === 0 ? [] : [["mgetBuffer", ...parsedTxs.map(({ chainId, txHash }) => intentsKeys.order(placeholderSuffix(chainId, txHash)))]]),
    ...parsedTxs.flatMap(({ chainId, txHash }) => [
      ["hgetall", intentsKeys.txState(chainId, txHash)],
      ["smembers", intentsKeys.tx(chainId, txHash)],
    ]),
  ];
  const results = await pipelined(redis, commands);
  let at = 0;
  const texts = (orderIds.length === 0 ? [] : results[at++]) as (string | null)[];
  const records = (orderIds.length === 0 ? [] : results[at++]) as (Buffer | null)[];
  const placeholders = (parsedTxs.length === 0 ? [] : results[at++]) as (Buffer | null)[];
  orderIds.forEach((orderId, index) => {
    const text = texts[index] ?? null;
    const state = parseOrderState(orderId, text);
    orders.set(orderId, { before: state, after: state, storedText: text, record: decodeRecord(records[index] ?? null) });
  });
  for (const [index, { tx, chainId, txHash }] of parsedTxs.entries()) {
    const hash = (results[at++] ?? {}) as Record<string, string>;
    const members = (results[at++] ?? []) as string[];
    const placeholder = placeholders[index] ?? null;
    const state = txStateFromHash(chainId, txHash, hash);
    txs.set(tx, { chainId, txHash, before: state, after: state, storedHash: hash, members, placeholder: decodeRecord(placeholder) });
  }
}

function decodeRecord(bytes: Buffer | null): IntentRecord | undefined {
  return bytes === null ? undefined : IntentRecord.decode(bytes);
}

/** Runs commands in one pipeline; rejects with the first command error. */
async function pipelined(redis: Redis, commands: readonly (readonly string[])[]): Promise<unknown[]> {
  if (commands.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const [command, ...args] of commands) (pipeline as unknown as Record<string, (...values: string[]) => unknown>)[command!]!(...args);
  const results = (await pipeline.exec()) ?? [];
  return results.map(([error, value], index) => {
    if (error) throw new Error(`redis ${commands[index]![0]} failed`, { cause: error });
    return value;
  });
}
