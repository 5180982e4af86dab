import type { ProjectionBatch } from "@platform/bus";
import type { Logger } from "@platform/log";
import type { CommitReplication } from "@platform/projection";
import { IntentRecord } from "@platform/proto/intents/v1/intents";
import { intentsKeys, orderVersion } from "@platform/read-models";
import { publishReadModelChange, type Signals } from "@platform/signals";
import { type Redis, readVersioned, type VersionedRead, versionedCommit } from "@platform/store";
import type { ReadModelMetrics } from "../supervisor/readModelMetrics.js";
import { deriveRecords, queueWrites, versionBumps } from "./commitWrites.js";
import { type BatchChange, decodeBatch } from "./decodeBatch.js";
import type { DeriveContext } from "./deriveRecord.js";
import { deadlineLookups, expiryDisagrees, finalityReads, headsOf } from "./headReach.js";
import { type HeadState, headSeconds } from "./heads.js";
import {
  dependenciesOf,
  foldChanges,
  type LoadedOrder,
  type LoadedTx,
  loadCommands,
  touchedBy,
} from "./loadedState.js";

export interface IntentsProjectionOptions {
  redis: Redis;
  log: Logger;
  /** FullSettler's REFUND_GRACE (seconds), for refundable_at. */
  refundGraceSeconds: number;
  /** `readmodel.changed.intents` goes out here after each commit. */
  signals?: Signals;
  /** Waited for between each commit and its signal (shared/commitReplication.ts). */
  replication?: CommitReplication | undefined;
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
  /** Told each chain's head after the commits that moved it (`read_model_as_of_*{read_model="intents:<chainId>"}`). */
  readModels?: ReadModelMetrics;
}

export interface IntentsProjection {
  loadOffsets(topic: string, partition: number): Promise<string | undefined>;
  handleBatch(batch: ProjectionBatch): Promise<void>;
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

/** What every transaction of one projection shares: its options, their defaults, and the chains seen. */
interface ProjectionContext {
  options: IntentsProjectionOptions;
  redis: Redis;
  log: Logger;
  maxAttempts: number;
  chunkSize: number;
  recordsPerTransaction: number;
  /** Chains seen in `rm:{intents}:chains`: their heads are read in the first round, not a second. */
  knownChains: Set<string>;
}

interface CommitInput {
  changes: readonly BatchChange[];
  orders: readonly string[];
  /** Heads this transaction writes (the batch's newest per chain). */
  newHeads: ReadonlyMap<string, HeadState>;
  /** The batch itself: its offset is checked and stored, and the expiry watermarks advanced. */
  batch?: ProjectionBatch;
  stamp: string;
}

/** What a transaction reads by: its batch (if its own) and offset key, and the heads it writes. */
interface CommitScope {
  batch: ProjectionBatch | undefined;
  offsetKey: string | undefined;
  newHeads: ReadonlyMap<string, HeadState>;
  headChains: string[];
  reaching: boolean;
}

/** What a transaction's reads gathered so far: the versions read (its commit's guards), and the loaded state. */
interface CommitReads {
  redis: Redis;
  versions: Map<string, string>;
  orders: Map<string, LoadedOrder>;
  txs: Map<string, LoadedTx>;
  rounds: number;
}

/** What round 1 read besides the loaded state. */
interface FirstRound {
  /** `rm:{intents}:chains`. */
  chains: string[];
  /** The stored heads read, by chain. */
  hashes: Map<string, Record<string, string>>;
  /** Per chain with a new head, its expiry watermark. */
  watermarks: (string | null)[];
  /** Per finality read, the orders it found. */
  finalityHits: string[][];
}

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
 *    depends on its Opens). Every read also reads the keys' versions (`rm:{intents}:versions`);
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
  const projection: ProjectionContext = {
    options,
    redis: options.redis,
    log: options.log,
    maxAttempts: options.maxAttempts ?? 5,
    chunkSize: options.chunkSize ?? 1_000,
    recordsPerTransaction: options.recordsPerTransaction ?? 500,
    knownChains: new Set<string>(),
  };
  const { redis, recordsPerTransaction } = projection;

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
        await applyBatch(projection, part);
        previousOffset = part.lastOffset;
        if (!last) await batch.heartbeat().catch(() => undefined);
      }
    },
  };
}

/** One transaction's worth of records, after whatever catching up its heads need. */
async function applyBatch(projection: ProjectionContext, batch: ProjectionBatch): Promise<void> {
  const { log, maxAttempts } = projection;
  const changes = decodeBatch(batch.messages, log);
  const stamp = new Date(Number(batch.messages.at(-1)?.timestamp ?? Date.now())).toISOString();
  const newHeads = new Map<string, HeadState>();
  for (const change of changes) if (change.kind === "head") newHeads.set(change.head.chainId, change.head);
  let conflicts = 0;
  for (let round = 0; round < 10_000; round++) {
    const outcome = await commit(projection, { changes, orders: [], newHeads, batch, stamp });
    if (outcome.kind === "committed") {
      for (const [chainId, head] of newHeads)
        projection.options.readModels?.stand(`intents:${chainId}`, Number(head.blockNumber), headSeconds(head));
      return;
    }
    if (outcome.kind === "catch up") {
      await catchUp(projection, outcome.orders, newHeads, stamp);
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
  throw new Error(`the heads of batch ${batch.topic}/${batch.partition}@${batch.lastOffset} kept reaching more orders`);
}

/**
 * Brings `orders` (reached by a head step: all orders of a backlog become final together, or
 * share a deadline) up to the new heads in transactions of `chunkSize`, each also storing the
 * heads (so other partitions derive with them from then on). The batch's own transaction then
 * handles what is left, advances the expiry watermark and stores the offset. A crash in between
 * only repeats work: the watermark and the finality indexes still name every order not yet
 * brought up to date.
 */
async function catchUp(
  projection: ProjectionContext,
  orders: readonly string[],
  newHeads: ReadonlyMap<string, HeadState>,
  stamp: string,
): Promise<void> {
  const { chunkSize, maxAttempts } = projection;
  for (let start = 0; start < orders.length; start += chunkSize) {
    const chunk = orders.slice(start, start + chunkSize);
    for (let attempt = 1; ; attempt++) {
      const outcome = await commit(projection, { changes: [], orders: chunk, newHeads, stamp });
      if (outcome.kind === "committed") break;
      // Reached more orders than requested (the chunk's transactions linked others): the next round takes them.
      if (outcome.kind === "catch up") break;
      if (attempt >= maxAttempts)
        throw new Error(`the intents read model kept changing under a head step (${outcome.key})`);
    }
  }
}

/**
 * One transaction: reads what the batch needs, folds the records into it, derives the records
 * anew and commits what differs with the offset, then signals the change.
 */
async function commit(projection: ProjectionContext, input: CommitInput): Promise<CommitOutcome> {
  const started = performance.now();
  const { redis, knownChains } = projection;
  const { batch, changes, newHeads } = input;
  const offsetKey = batch === undefined ? undefined : intentsKeys.offset(batch.topic, batch.partition);
  const headChains = [...newHeads.keys()];
  // Only a batch's own transaction re-derives what its heads reach (catch-up chunks name their orders).
  const reaching = batch !== undefined && headChains.length > 0;
  const scope: CommitScope = { batch, offsetKey, newHeads, headChains, reaching };
  const reads: CommitReads = { redis, versions: new Map(), orders: new Map(), txs: new Map(), rounds: 0 };
  const dirty = touchedBy(changes, input.orders);

  // Round 1: the offset, the heads, what the records touch, and what the heads reach by finality.
  const first = await readFirstRound(reads, scope, knownChains, dirty);
  // Round 2 (heads only, or a chain first seen): the deadlines the head time crossed, other chains' heads.
  const { heads, times, deadlineHits } = await readSecondRound(reads, scope, knownChains, first);
  // Round 3 (deadlines crossed): which of those orders' stored statuses disagree with the new time.
  const reached = await readReachedOrders(reads, first.finalityHits, deadlineHits, times);
  const reachedNew = [...reached].filter((orderId) => !dirty.orders.has(orderId));
  if (reachedNew.length > projection.chunkSize) return { kind: "catch up", orders: reachedNew };

  // Fold the records into what round 1 loaded (their orders and transactions), then load what
  // the loaded records depend on, the orders the heads reached first, until nothing new turns up.
  foldChanges(changes, reads.orders, reads.txs);
  await readDependencies(reads, reachedNew);
  const readMs = performance.now() - started;

  // Derive every loaded record anew.
  const context: DeriveContext = { heads, refundGraceSeconds: projection.options.refundGraceSeconds };
  const derived = deriveRecords(reads.orders, reads.txs, context);

  // Write what differs, with the heads, the watermarks and the offset.
  const { ops, changedKeys, users, changedTxs } = queueWrites({
    orders: reads.orders,
    txs: reads.txs,
    derived,
    stamp: input.stamp,
    newHeads,
    chains: first.chains,
    batch,
    offsetKey,
  });
  const foldMs = performance.now() - started - readMs;
  const result = await versionedCommit(redis, {
    versionsKey: intentsKeys.versions,
    expect: batch === undefined || offsetKey === undefined ? [] : [{ key: offsetKey, value: batch.previousOffset }],
    guards: reads.versions,
    ops,
    bumps: versionBumps(ops, offsetKey),
  });
  if (result.outcome === "mismatch") throw staleOffset(batch!, result.actual);
  if (result.outcome === "conflict") return { kind: "conflict", key: result.key };
  await projection.options.replication?.settle(redis, intentsKeys.versions);
  if (changedKeys.length > 0 || changedTxs.length > 0)
    signalChange(projection.options.signals, changedKeys, [...users], changedTxs);
  const ms = performance.now() - started;
  projection.log.debug(
    {
      topic: batch?.topic,
      partition: batch?.partition,
      records: batch?.messages.length ?? 0,
      orders: reads.orders.size,
      transactions: reads.txs.size,
      changed: changedKeys.length,
      rounds: reads.rounds,
      ms: Math.round(ms),
      readMs: Math.round(readMs),
      foldMs: Math.round(foldMs),
      writeMs: Math.round(ms - readMs - foldMs),
    },
    batch === undefined ? "intents head step applied to a chunk of orders" : "intents batch applied",
  );
  return { kind: "committed" };
}

/** One round trip: the versions of `names` (keys.ts versionOf), then `commands`, then the orders and transactions of `load`. */
async function read(
  reads: CommitReads,
  names: readonly string[],
  commands: readonly (readonly string[])[],
  load?: ReturnType<typeof loadCommands>,
): Promise<VersionedRead> {
  reads.rounds += 1;
  const answer = await readVersioned(
    reads.redis,
    intentsKeys.versions,
    names,
    commands,
    reads.versions,
    load?.groups ?? [],
  );
  load?.parse(answer.groups, reads.orders, reads.txs);
  return answer;
}

/**
 * Round 1: checks the stored offset, and reads the chains, the heads of those known, the expiry
 * watermarks and what the new heads reach by finality; loads the orders and transactions touched.
 */
async function readFirstRound(
  reads: CommitReads,
  { batch, offsetKey, newHeads, headChains, reaching }: CommitScope,
  knownChains: ReadonlySet<string>,
  dirty: { orders: ReadonlySet<string>; txs: ReadonlySet<string> },
): Promise<FirstRound> {
  const guessedChains = [...new Set([...knownChains, ...headChains])];
  const finality: string[][] = reaching ? finalityReads(newHeads, headChains) : [];
  const first = (
    await read(
      reads,
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
      loadCommands([...dirty.orders], [...dirty.txs]),
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
  return { chains, hashes, watermarks, finalityHits };
}

/** The batch continues from an offset that is no longer the stored one: the consumer must reload it. */
function staleOffset(batch: ProjectionBatch, stored: string | undefined): Error {
  return new Error(
    `stored offset of ${batch.topic}/${batch.partition} is ${stored ?? "none"}, the batch continues from ${batch.previousOffset ?? "none"}`,
  );
}

/**
 * Round 2, when the new heads have deadlines to look up or a chain was first seen: the deadlines
 * each new head's time crossed, and the heads of the chains round 1 did not know. Then the heads
 * the records are derived with.
 */
async function readSecondRound(
  reads: CommitReads,
  { newHeads, headChains, reaching }: CommitScope,
  knownChains: Set<string>,
  { chains, hashes, watermarks }: FirstRound,
): Promise<{ heads: Map<string, HeadState>; times: number[]; deadlineHits: string[][] }> {
  const unknownChains = chains.filter((chainId) => !hashes.has(chainId));
  for (const chainId of chains) knownChains.add(chainId);
  const times = headChains.map((chainId) => headSeconds(newHeads.get(chainId)!));
  const lookups: string[][] = reaching ? deadlineLookups(headChains, times, watermarks) : [];
  let deadlineHits: string[][] = [];
  if (unknownChains.length > 0 || lookups.length > 0) {
    const second = (
      await read(reads, unknownChains.map(intentsKeys.head), [
        ...unknownChains.map((chainId) => ["hgetall", intentsKeys.head(chainId)]),
        ...lookups,
      ])
    ).results;
    unknownChains.forEach((chainId, index) => hashes.set(chainId, second[index] as Record<string, string>));
    deadlineHits = second.slice(unknownChains.length) as string[][];
  }
  return { heads: headsOf(hashes, newHeads), times, deadlineHits };
}

/**
 * Round 3, when deadlines were crossed: the orders the heads reach, those of `finalityHits` and
 * those of `deadlineHits` whose stored record's status disagrees with its chain's new time.
 */
async function readReachedOrders(
  reads: CommitReads,
  finalityHits: readonly string[][],
  deadlineHits: readonly string[][],
  times: readonly number[],
): Promise<Set<string>> {
  const reached = new Set<string>(finalityHits.flat());
  const candidates = deadlineHits.flatMap((members, index) =>
    members.map((orderId) => ({ orderId, now: times[index]! })),
  );
  if (candidates.length > 0) {
    const [records] = (
      await read(
        reads,
        candidates.map((candidate) => orderVersion(candidate.orderId)),
        [["mgetBuffer", ...candidates.map((candidate) => intentsKeys.order(candidate.orderId))]],
      )
    ).results as [(Buffer | null)[]];
    candidates.forEach((candidate, index) => {
      const bytes = records[index];
      if (bytes === null || bytes === undefined) return;
      if (expiryDisagrees(IntentRecord.decode(bytes), candidate.now)) reached.add(candidate.orderId);
    });
  }
  return reached;
}

/** Loads what the loaded records depend on, and the orders `reached`, until nothing new turns up. */
async function readDependencies(reads: CommitReads, reached: readonly string[]): Promise<void> {
  let more = dependenciesOf(reads.orders, reads.txs);
  more.orders = [...new Set([...reached, ...more.orders])];
  while (more.orders.length > 0 || more.txs.length > 0) {
    await read(reads, [], [], loadCommands(more.orders, more.txs));
    more = dependenciesOf(reads.orders, reads.txs);
  }
}

function signalChange(
  signals: Signals | undefined,
  orderKeys: string[],
  users: string[],
  transactions: string[],
): void {
  const truncated =
    orderKeys.length > SIGNAL_LIMIT || users.length > SIGNAL_LIMIT || transactions.length > SIGNAL_LIMIT;
  if (signals === undefined) return;
  publishReadModelChange(signals, {
    projection: "intents",
    orderKeys: orderKeys.slice(0, SIGNAL_LIMIT),
    users: users.slice(0, SIGNAL_LIMIT),
    transactions: transactions.slice(0, SIGNAL_LIMIT),
    truncated,
  });
}
