import type { ProjectionBatch } from "@platform/bus";
import type { Logger } from "@platform/log";
import { IntentRecord, IntentStatus } from "@platform/proto/intents/v1/intents";
import { subjects, type Signals } from "@platform/signals";
import {
  readVersioned,
  versionedCommit,
  type EntityGroup,
  type EntityValue,
  type Redis,
  type VersionedOp,
  type VersionedRead,
} from "@platform/store";
import { decodeBatch, type BatchChange } from "./decodeBatch.js";
import {
  deriveOrderRecord,
  derivePlaceholderRecord,
  encodeRecord,
  placeholderOrderId,
  sameAsStored,
  type DeriveContext,
  type StoredRecord,
} from "./deriveRecord.js";
import { headFromHash, headSeconds, headToHash, type HeadState } from "./heads.js";
import { idPrefixes, intentsKeys, orderVersion, placeholderSuffix, txId, versionOf } from "./keys.js";
import {
  evolveOrderFromRecord,
  linkNotification,
  parseOrderState,
  serializeOrderState,
  type OrderState,
} from "./orderState.js";
import { groupedWrites } from "./groupedWrites.js";
import { indexChanges, recordIndexes } from "./recordIndexes.js";
import { evolveTx, txStateFromHash, txStateToHash, type TxState } from "./txState.js";

export interface IntentsProjectionOptions {
  redis: Redis;
  log: Logger;
  /** FullSettler's REFUND_GRACE (seconds), for refundable_at. */
  refundGraceSeconds: number;
  /** `readmodel.changed.intents` goes out here after each commit. */
  signals?: Signals;
  /** Attempts of a batch whose keys another projector changed meanwhile; 5 by default. */
  maxAttempts?: number;
  /** Orders per transaction when a head step reaches many at once; 1,000 by default. */
  chunkSize?: number;
  /**
   * Records per transaction: a larger batch is applied in consecutive transactions, each storing
   * the offset of its last record (so each is exactly-once on its own). Bounds how long one
   * commit script holds Redis; 500 by default.
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
  /** `rm:intents:events:<orderId>` as read. */
  storedState: Buffer | null;
  record: StoredRecord | undefined;
}

interface LoadedTx {
  chainId: string;
  txHash: string;
  before: TxState;
  after: TxState;
  storedHash: Record<string, string>;
  members: string[];
  placeholder: StoredRecord | undefined;
}

/** What one commit attempt came to. */
type CommitOutcome =
  | { kind: "committed" }
  /** A key it read was written by another projector meanwhile: read again and retry. */
  | { kind: "conflict"; key: string }
  /** The batch's heads reach more orders than one transaction should carry: bring these up first. */
  | { kind: "catch up"; orders: string[] };

/** At most this many names per kind in a change signal. */
const SIGNAL_LIMIT = 500;

/**
 * The intents projection: folds chain.intents.v1 and intents.notifications.v1 into the read model
 * of keys.ts, exactly once per record. A batch is applied in transactions of at most
 * `recordsPerTransaction` records, each storing its last offset; each of them:
 *
 * 1. reads, in one pipeline, the partition's stored offset, the chain heads, the state of every
 *    order and transaction the records touch and, when the records carry chain heads, the orders
 *    those heads reach by finality; then, for heads, the orders whose deadline the head time
 *    crossed; then, until nothing new turns up, the transactions the loaded orders came from and
 *    the orders of those transactions (a record shows its notification; a transaction's record
 *    depends on its Opens). Every read also reads the keys' versions (`rm:intents:versions`);
 * 2. when the heads reach more orders than `chunkSize`, brings those orders up to the new heads
 *    first in transactions of `chunkSize` (each storing the heads), then starts again;
 * 3. folds the records into their states with the pure evolve functions, derives every loaded
 *    record anew, and hands only what differs, indexes included, with the heads and the offset, to
 *    one commit script (@platform/store versionedCommit) that checks the stored offset still is
 *    the batch's previous one and that no key read has been written since, then writes it all.
 *    A stale offset (the partition moved on under another member) rejects the batch, and the
 *    consumer reloads its position; a changed key (another partition's batch touched the same
 *    order) makes the transaction run again from its reads.
 *
 * One round trip per read step and one for the commit: two for a batch without heads.
 */
export function intentsProjection(options: IntentsProjectionOptions): IntentsProjection {
  const { redis, log } = options;
  const maxAttempts = options.maxAttempts ?? 5;
  const chunkSize = options.chunkSize ?? 1_000;
  const recordsPerTransaction = options.recordsPerTransaction ?? 500;
  /** Chains seen in `rm:intents:chains`: their heads are read in the first round, not a second. */
  const knownChains = new Set<string>();

  const commit = async (input: {
    changes: readonly BatchChange[];
    orders: readonly string[];
    /** Heads this transaction writes (the batch's newest per chain). */
    newHeads: ReadonlyMap<string, HeadState>;
    /** The batch itself: its offset is checked and stored, and the expiry watermarks advanced. */
    batch?: ProjectionBatch;
    stamp: string;
  }): Promise<CommitOutcome> => {
    const started = performance.now();
    const { batch, changes, newHeads } = input;
    const offsetKey = batch === undefined ? undefined : intentsKeys.offset(batch.topic, batch.partition);
    const headChains = [...newHeads.keys()];
    // Only a batch's own transaction re-derives what its heads reach (catch-up chunks name their orders).
    const reaching = batch !== undefined && headChains.length > 0;
    const versions = new Map<string, string>();
    const orders = new Map<string, LoadedOrder>();
    const txs = new Map<string, LoadedTx>();
    let rounds = 0;
    /** One round trip: the versions of `names` (keys.ts versionOf), then `commands`, then the orders and transactions of `load`. */
    const read = async (
      names: readonly string[],
      commands: readonly (readonly string[])[],
      load?: ReturnType<typeof loadCommands>,
    ): Promise<VersionedRead> => {
      rounds += 1;
      const answer = await readVersioned(redis, intentsKeys.versions, names, commands, versions, load?.groups ?? []);
      load?.parse(answer.groups, orders, txs);
      return answer;
    };

    const dirtyOrders = new Set<string>(input.orders);
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

    // Round 1: the offset, the heads, what the records touch, and what the heads reach by finality.
    const guessedChains = [...new Set([...knownChains, ...headChains])];
    const finality: string[][] = reaching
      ? headChains.flatMap((chainId) => {
          const head = newHeads.get(chainId)!;
          return [
            ...(head.safeBlockNumber === undefined
              ? []
              : [["zrangebyscore", intentsKeys.unsafe(chainId), "-inf", head.safeBlockNumber]]),
            ...(head.finalizedBlockNumber === undefined
              ? []
              : [["zrangebyscore", intentsKeys.unfinalized(chainId), "-inf", head.finalizedBlockNumber]]),
          ];
        })
      : [];
    const first = (
      await read(
        [
          intentsKeys.chains,
          ...guessedChains.map(intentsKeys.head),
          ...(reaching
            ? headChains.flatMap((chainId) => [
                intentsKeys.expiry(chainId),
                intentsKeys.deadlines(chainId),
                intentsKeys.unsafe(chainId),
                intentsKeys.unfinalized(chainId),
              ])
            : []),
        ],
        [
          ...(offsetKey === undefined ? [] : [["get", offsetKey]]),
          ["smembers", intentsKeys.chains],
          ...guessedChains.map((chainId) => ["hgetall", intentsKeys.head(chainId)]),
          ...(reaching ? headChains.map((chainId) => ["get", intentsKeys.expiry(chainId)]) : []),
          ...finality,
        ],
        loadCommands([...dirtyOrders], [...dirtyTxs]),
      )
    ).results;
    let at = 0;
    if (batch !== undefined) {
      const stored = (first[at++] as string | null) ?? undefined;
      if (stored !== batch.previousOffset) throw staleOffset(batch, stored);
    }
    const chains = first[at++] as string[];
    const hashes = new Map<string, Record<string, string>>();
    for (const chainId of guessedChains) hashes.set(chainId, first[at++] as Record<string, string>);
    const watermarks = reaching ? headChains.map(() => first[at++] as string | null) : [];
    const finalityHits = finality.map(() => first[at++] as string[]);

    // Round 2 (heads only, or a chain first seen): the deadlines the head time crossed, other chains' heads.
    const unknownChains = chains.filter((chainId) => !hashes.has(chainId));
    for (const chainId of chains) knownChains.add(chainId);
    const times = headChains.map((chainId) => headSeconds(newHeads.get(chainId)!));
    const lookups: string[][] = reaching
      ? headChains.map((chainId, index) => {
          const now = times[index]!;
          const stored = watermarks[index];
          const watermark = stored === null || stored === undefined ? undefined : Number(stored);
          // Deadlines between the watermark and the head time are the only ones whose status can flip.
          if (watermark === undefined) return ["zrangebyscore", intentsKeys.deadlines(chainId), "-inf", `(${now}`];
          if (now >= watermark) return ["zrangebyscore", intentsKeys.deadlines(chainId), String(watermark), `(${now}`];
          return ["zrangebyscore", intentsKeys.deadlines(chainId), String(now), `(${watermark}`];
        })
      : [];
    let deadlineHits: string[][] = [];
    if (unknownChains.length > 0 || lookups.length > 0) {
      const second = (
        await read(unknownChains.map(intentsKeys.head), [
          ...unknownChains.map((chainId) => ["hgetall", intentsKeys.head(chainId)]),
          ...lookups,
        ])
      ).results;
      unknownChains.forEach((chainId, index) => hashes.set(chainId, second[index] as Record<string, string>));
      deadlineHits = second.slice(unknownChains.length) as string[][];
    }
    const heads = new Map<string, HeadState>();
    for (const [chainId, hash] of hashes) {
      const head = headFromHash(chainId, hash ?? {});
      if (head !== undefined) heads.set(chainId, head);
    }
    for (const [chainId, head] of newHeads) heads.set(chainId, head);

    // Round 3 (deadlines crossed): which of those orders' stored statuses disagree with the new time.
    const reached = new Set<string>(finalityHits.flat());
    const candidates = deadlineHits.flatMap((members, index) =>
      members.map((orderId) => ({ orderId, now: times[index]! })),
    );
    if (candidates.length > 0) {
      const [records] = (
        await read(
          candidates.map((candidate) => orderVersion(candidate.orderId)),
          [["mgetBuffer", ...candidates.map((candidate) => intentsKeys.order(candidate.orderId))]],
        )
      ).results as [(Buffer | null)[]];
      candidates.forEach((candidate, index) => {
        const bytes = records[index];
        if (bytes === null || bytes === undefined) return;
        const record = IntentRecord.decode(bytes);
        if (record.fillDeadline === undefined) return;
        const expired = candidate.now > record.fillDeadline;
        if (
          (record.status === IntentStatus.INTENT_STATUS_OPEN && expired) ||
          (record.status === IntentStatus.INTENT_STATUS_EXPIRED && !expired)
        )
          reached.add(candidate.orderId);
      });
    }
    const reachedNew = [...reached].filter((orderId) => !dirtyOrders.has(orderId));
    if (reachedNew.length > chunkSize) return { kind: "catch up", orders: reachedNew };

    // Fold the records into what round 1 loaded (their orders and transactions), then load what
    // the loaded records depend on, the orders the heads reached first, until nothing new turns up.
    foldChanges(changes, orders, txs);
    let more = dependenciesOf(orders, txs);
    more.orders = [...new Set([...reachedNew, ...more.orders])];
    while (more.orders.length > 0 || more.txs.length > 0) {
      await read([], [], loadCommands(more.orders, more.txs));
      more = dependenciesOf(orders, txs);
    }
    const readMs = performance.now() - started;

    // Derive every loaded record anew.
    const context: DeriveContext = { heads, refundGraceSeconds: options.refundGraceSeconds };
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

    // Write what differs, with the heads, the watermarks and the offset.
    const writes = groupedWrites();
    const changedKeys: string[] = [];
    const users = new Set<string>();
    orders.forEach((loaded, orderId) => {
      // An order the batch did not change keeps its stored state: skip serialising it.
      if (loaded.after === loaded.before) return;
      const empty = loaded.after.events.length === 0 && loaded.after.notifiedTx === undefined;
      const state = empty ? null : serializeOrderState(loaded.after);
      if (state === null ? loaded.storedState === null : loaded.storedState?.equals(state)) return;
      if (state === null) writes.del(intentsKeys.events(orderId));
      else writes.set(intentsKeys.events(orderId), state);
    });
    next.forEach((record, suffix) => {
      const stored = previous.get(suffix);
      if (sameAsStored(stored, record)) return;
      const before = stored?.record;
      changedKeys.push(suffix);
      if (record === undefined) writes.del(intentsKeys.order(suffix));
      else writes.set(intentsKeys.order(suffix), encodeRecord({ ...record, updatedAt: input.stamp }));
      const { remove, add } = indexChanges(recordIndexes(suffix, before), recordIndexes(suffix, record));
      for (const entry of remove) writes.zrem(entry.key, entry.member);
      for (const entry of add) writes.zadd(entry.key, entry.score, entry.member);
      if (before?.userAddress) users.add(before.userAddress);
      if (record?.userAddress) users.add(record.userAddress);
    });
    const ops: VersionedOp[] = writes.ops();
    const changedTxs: string[] = [];
    for (const [tx, loaded] of txs) {
      const members = txSets.get(tx) ?? [];
      const setKey = intentsKeys.tx(loaded.chainId, loaded.txHash);
      const added = members.filter((member) => !loaded.members.includes(member));
      const removed = loaded.members.filter((member) => !members.includes(member));
      if (removed.length > 0) ops.push({ op: "srem", key: setKey, members: removed });
      if (added.length > 0) ops.push({ op: "sadd", key: setKey, members: added });
      const hash = txStateToHash(loaded.after, (openersOf.get(tx) ?? []).length > 0);
      const same = sameHash(hash ?? {}, loaded.storedHash);
      if (!same)
        ops.push({ op: "hreplace", key: intentsKeys.txState(loaded.chainId, loaded.txHash), fields: hash ?? {} });
      if (!same || added.length > 0 || removed.length > 0) changedTxs.push(tx);
    }
    for (const [chainId, head] of newHeads) {
      ops.push({ op: "hreplace", key: intentsKeys.head(chainId), fields: headToHash(head) });
      if (!chains.includes(chainId)) ops.push({ op: "sadd", key: intentsKeys.chains, members: [chainId] });
      // Every deadline up to this head's time now has the status this time gives it.
      if (batch !== undefined)
        ops.push({ op: "set", key: intentsKeys.expiry(chainId), value: String(headSeconds(head)) });
    }
    if (batch !== undefined && offsetKey !== undefined)
      ops.push({ op: "set", key: offsetKey, value: batch.lastOffset });
    const foldMs = performance.now() - started - readMs;
    const bumps = new Set<string>();
    for (const op of ops) {
      const name = op.key === offsetKey ? undefined : versionOf(op.key);
      if (name !== undefined) bumps.add(name);
    }
    const result = await versionedCommit(redis, {
      versionsKey: intentsKeys.versions,
      expect: batch === undefined || offsetKey === undefined ? [] : [{ key: offsetKey, value: batch.previousOffset }],
      guards: versions,
      ops,
      bumps,
    });
    if (result.outcome === "mismatch") throw staleOffset(batch!, result.actual);
    if (result.outcome === "conflict") return { kind: "conflict", key: result.key };
    if (changedKeys.length > 0 || changedTxs.length > 0) signalChange(changedKeys, [...users], changedTxs);
    const ms = performance.now() - started;
    log.debug(
      {
        topic: batch?.topic,
        partition: batch?.partition,
        records: batch?.messages.length ?? 0,
        orders: orders.size,
        transactions: txs.size,
        changed: changedKeys.length,
        rounds,
        ms: Math.round(ms),
        readMs: Math.round(readMs),
        foldMs: Math.round(foldMs),
        writeMs: Math.round(ms - readMs - foldMs),
      },
      batch === undefined ? "intents head step applied to a chunk of orders" : "intents batch applied",
    );
    return { kind: "committed" };
  };

  const signalChange = (orderKeys: string[], users: string[], transactions: string[]): void => {
    const truncated =
      orderKeys.length > SIGNAL_LIMIT || users.length > SIGNAL_LIMIT || transactions.length > SIGNAL_LIMIT;
    options.signals?.publish(subjects.readModelChanged("intents"), {
      orderKeys: orderKeys.slice(0, SIGNAL_LIMIT),
      users: users.slice(0, SIGNAL_LIMIT),
      transactions: transactions.slice(0, SIGNAL_LIMIT),
      truncated,
    });
  };

  /**
   * Brings `orders` (reached by a head step: all orders of a backlog become final together, or
   * share a deadline) up to the new heads in transactions of `chunkSize`, each also storing the
   * heads (so other partitions derive with them from then on). The batch's own transaction then
   * handles what is left, advances the expiry watermark and stores the offset. A crash in between
   * only repeats work: the watermark and the finality indexes still name every order not yet
   * brought up to date.
   */
  const catchUp = async (
    orders: readonly string[],
    newHeads: ReadonlyMap<string, HeadState>,
    stamp: string,
  ): Promise<void> => {
    for (let start = 0; start < orders.length; start += chunkSize) {
      const chunk = orders.slice(start, start + chunkSize);
      for (let attempt = 1; ; attempt++) {
        const outcome = await commit({ changes: [], orders: chunk, newHeads, stamp });
        if (outcome.kind === "committed") break;
        // Reached more orders than requested (the chunk's transactions linked others): the next round takes them.
        if (outcome.kind === "catch up") break;
        if (attempt >= maxAttempts)
          throw new Error(`the intents read model kept changing under a head step (${outcome.key})`);
      }
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
        const part: ProjectionBatch = {
          ...batch,
          messages,
          lastOffset: last ? batch.lastOffset : messages.at(-1)!.offset,
          previousOffset,
        };
        await applyBatch(part);
        previousOffset = part.lastOffset;
        if (!last) await batch.heartbeat().catch(() => undefined);
      }
    },
  };

  /** One transaction's worth of records, after whatever catching up its heads need. */
  async function applyBatch(batch: ProjectionBatch): Promise<void> {
    const changes = decodeBatch(batch.messages, log);
    const stamp = new Date(Number(batch.messages.at(-1)?.timestamp ?? Date.now())).toISOString();
    const newHeads = new Map<string, HeadState>();
    for (const change of changes) if (change.kind === "head") newHeads.set(change.head.chainId, change.head);
    let conflicts = 0;
    for (let round = 0; round < 10_000; round++) {
      const outcome = await commit({ changes, orders: [], newHeads, batch, stamp });
      if (outcome.kind === "committed") return;
      if (outcome.kind === "catch up") {
        await catchUp(outcome.orders, newHeads, stamp);
      } else {
        conflicts += 1;
        if (conflicts >= maxAttempts)
          throw new Error(
            `the intents read model kept changing under batch ${batch.topic}/${batch.partition}@${batch.lastOffset} (${outcome.key})`,
          );
        log.debug(
          { topic: batch.topic, partition: batch.partition, attempt: conflicts, key: outcome.key },
          "intents keys read by the batch changed meanwhile; applying it again",
        );
      }
      await batch.heartbeat().catch(() => undefined);
    }
    throw new Error(
      `the heads of batch ${batch.topic}/${batch.partition}@${batch.lastOffset} kept reaching more orders`,
    );
  }
}

/** The batch continues from an offset that is no longer the stored one: the consumer must reload it. */
function staleOffset(batch: ProjectionBatch, stored: string | undefined): Error {
  return new Error(
    `stored offset of ${batch.topic}/${batch.partition} is ${stored ?? "none"}, the batch continues from ${batch.previousOffset ?? "none"}`,
  );
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
function notificationOf(state: OrderState, txs: ReadonlyMap<string, LoadedTx>): TxState | undefined {
  let found: TxState | undefined;
  forEachLinkedTx(state, (tx) => {
    const after = txs.get(tx)?.after;
    if (found === undefined && after?.notified !== undefined) found = after;
  });
  return found;
}

/**
 * The reads of the given orders' and transactions' state, as two entity groups of one read script
 * (@platform/store readVersioned): an order's events and record under its version, a transaction's
 * placeholder record, state hash and order set under its. Only what exists comes back, so the
 * orders and transactions of a backlog of new Opens cost next to nothing to read.
 */
function loadCommands(orderIds: readonly string[], txIds: readonly string[]) {
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

/** Whether two hashes hold the same fields and values. */
function sameHash(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (a[key] !== b[key]) return false;
  return true;
}

/** Folds a batch's events into the loaded states of their orders and transactions. */
function foldChanges(
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
function dependenciesOf(
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

function decodeRecord(bytes: Buffer | null): StoredRecord | undefined {
  return bytes === null ? undefined : { record: IntentRecord.decode(bytes), bytes };
}
