import { PlatformError } from "@platform/errors/base";
import type { Hex } from "viem";
import type { BlockHeader, BlockRef, WindowBlock } from "./blocks.js";
import type { HeaderReader } from "./headerReader.js";
import { extendWindow, findCommonAncestor, linkHeaders, splitAtAncestor } from "./reconcile.js";

/**
 * A generic block follower: it walks a chain block by block from a checkpoint, reads each range's
 * events through a source, and hands every step to `commit`, which publishes it atomically (events,
 * chain head and checkpoint in one Kafka transaction). It keeps the last `windowSize` blocks with
 * the events published for them; when a new block does not build on the kept tip it walks back to
 * the common ancestor and commits the removal of every event above it before reading on. The
 * follower's own state moves only after a commit succeeded, so a failed step is simply retried.
 */

export interface FollowerCommit<E> {
  /** Blocks a reorganisation orphaned, oldest first, with the events published for them. */
  orphaned: WindowBlock<E>[];
  /** New canonical blocks, ascending, each with its events. */
  blocks: { header: BlockHeader; events: E[] }[];
  /** The block the source stands on after this commit: the last new block, or the common ancestor. */
  tip: BlockHeader;
  /** Set when `orphaned` is not empty: the last block both forks share (equals `tip`). */
  commonAncestor?: BlockHeader;
  /** The node's latest block number when the step read it (finality is measured against it). */
  latestBlockNumber: bigint;
  /** The kept blocks after the commit, oldest first: the checkpoint's recent blocks. */
  window: BlockRef[];
}

export interface BlockSource<E> {
  /**
   * The events of the given linked blocks, by block hash (blocks without events may be absent).
   * Throws ForkDuringReadError when what the node returns belongs to other blocks than these
   * headers (it switched forks in between); the step is then retried from the tip.
   */
  readBlocks(headers: readonly BlockHeader[], latestBlockNumber: bigint): Promise<Map<Hex, E[]>>;
}

/** The node answered for another fork than the headers read just before; read again. */
export class ForkDuringReadError extends PlatformError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, { code: "FORK_DURING_READ", retryable: true, cause: options?.cause });
  }
}

/** No kept block is canonical any more: the fork is deeper than the window (and the configured finality). */
export class ReorgBeyondWindowError extends PlatformError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, { code: "REORG_BEYOND_WINDOW", retryable: false, cause: options?.cause });
  }
}

export interface BlockFollowerOptions<E> {
  headers: HeaderReader;
  source: BlockSource<E>;
  commit(step: FollowerCommit<E>): Promise<void>;
  /** Kept recent blocks; at least the chain's finalized depth plus a margin. */
  windowSize: number;
  /** The most blocks read and committed in one step (a backlog is worked off in such ranges). */
  maxBlocksPerStep: number;
  /**
   * Events one step aims at: the range shrinks on dense blocks and grows on sparse ones, so that
   * reading the next range overlaps publishing this one. 2,000 by default.
   */
  targetEventsPerStep?: number;
  /** Kept blocks restored from the checkpoint, oldest first; empty for a source that never published. */
  window: WindowBlock<E>[];
  /**
   * What the window keeps of each committed event: a removal names an event by its key, id, type
   * and block, so a source whose events are large keeps only those (the native source at mainnet
   * size: thousands of balance snapshots and holder positions a block). The whole event by default.
   */
  windowEvent?(event: E): E;
  /** Where a source without a checkpoint starts. */
  startBlock: bigint;
}

export type StepOutcome =
  | { kind: "advanced"; tip: bigint; latest: bigint }
  | { kind: "reorganised"; ancestor: bigint; orphanedBlocks: number; latest: bigint }
  | { kind: "idle"; latest: bigint };

export interface BlockFollower {
  /** Reads and commits one step; rejects (state unchanged) when the node or the commit fails. */
  step(): Promise<StepOutcome>;
  /** The last committed block, undefined before the first commit of a fresh source. */
  tip(): BlockRef | undefined;
}

/** A range read while the previous step was being committed, on the assumption that it commits. */
interface ReadAhead<E> {
  /** The block the range builds on: the tip the previous step was committing. */
  base: BlockRef;
  latest: bigint;
  linked: BlockHeader[];
  events: Map<Hex, E[]>;
}

export function createBlockFollower<E>(options: BlockFollowerOptions<E>): BlockFollower {
  if (options.windowSize < 1) throw new RangeError(`windowSize must be positive, got ${options.windowSize}`);
  if (options.maxBlocksPerStep < 1)
    throw new RangeError(`maxBlocksPerStep must be positive, got ${options.maxBlocksPerStep}`);
  const state: FollowerState<E> = {
    options,
    targetEvents: options.targetEventsPerStep ?? 2_000,
    window: keptInWindow(options, options.window.slice(-options.windowSize)),
    // Start modestly: a backlog's density is unknown until its first range is read.
    rangeSize: Math.min(options.maxBlocksPerStep, 16),
    ahead: undefined,
  };

  return {
    tip: () => state.window.at(-1)?.block,

    step: () => takeStep(state),
  };
}

/** What a follower keeps from step to step. */
interface FollowerState<E> {
  readonly options: BlockFollowerOptions<E>;
  readonly targetEvents: number;
  /** The kept blocks with the events published for them, oldest first. */
  window: WindowBlock<E>[];
  /** Blocks the next range reads (adapted to the events of the last one). */
  rangeSize: number;
  ahead: Promise<ReadAhead<E> | undefined> | undefined;
}

async function takeStep<E>(state: FollowerState<E>): Promise<StepOutcome> {
  const { options } = state;
  const tip = state.window.at(-1)?.block;
  const prefetched = await takeAhead(state, tip);
  let latest: bigint;
  let linked: BlockHeader[];
  let events: Map<Hex, E[]>;
  if (prefetched !== undefined) {
    ({ latest, linked, events } = prefetched);
  } else {
    latest = await options.headers.latestBlockNumber();
    if (tip !== undefined && latest <= tip.number) {
      // Nothing new, unless the node dropped or replaced the tip (a rollback, a same-height fork).
      if (latest < tip.number) return reorganise(state, latest);
      const [current] = await options.headers.headersAt([tip.number]);
      if (current !== undefined && current.hash !== tip.hash) return reorganise(state, latest);
      return { kind: "idle", latest };
    }
    const read = await readRange(state, tip, latest);
    if (read.tipMismatch) return reorganise(state, latest);
    ({ linked, events } = read);
    if (linked.length === 0) return { kind: "idle", latest };
  }
  return commitRange(state, latest, linked, events);
}

/** The range read ahead, if it still builds on the current tip (a failed commit discards it). */
async function takeAhead<E>(state: FollowerState<E>, tip: BlockRef | undefined): Promise<ReadAhead<E> | undefined> {
  const pending = state.ahead;
  state.ahead = undefined;
  if (pending === undefined || tip === undefined) return undefined;
  const read = await pending;
  return read !== undefined && read.base.number === tip.number && read.base.hash === tip.hash ? read : undefined;
}

async function reorganise<E>(state: FollowerState<E>, latest: bigint): Promise<StepOutcome> {
  const { options } = state;
  const heights = state.window.map((entry) => entry.block.number).filter((number) => number <= latest);
  const canonicalHeaders = await options.headers.headersAt(heights);
  const canonical = new Map(canonicalHeaders.map((header) => [header.number, header.hash] as const));
  const ancestor = findCommonAncestor(
    state.window.map((entry) => entry.block),
    canonical,
  );
  if (ancestor === undefined) {
    const oldest = state.window[0]?.block;
    throw new ReorgBeyondWindowError(
      `no kept block is canonical any more (kept ${state.window.length} blocks from ${oldest?.number ?? "?"}); the fork is deeper than the window`,
    );
  }
  const ancestorHeader = canonicalHeaders.find((header) => header.number === ancestor.number)!;
  const { kept, orphaned } = splitAtAncestor(state.window, ancestor);
  await options.commit({
    orphaned,
    blocks: [],
    tip: ancestorHeader,
    commonAncestor: ancestorHeader,
    latestBlockNumber: latest,
    window: kept.map((entry) => entry.block),
  });
  state.window = kept;
  return { kind: "reorganised", ancestor: ancestor.number, orphanedBlocks: orphaned.length, latest };
}

/** The blocks after `base` (or from the start block) up to the next range's end, and their events. */
async function readRange<E>(state: FollowerState<E>, base: BlockRef | undefined, latest: bigint) {
  const { options } = state;
  const from = base === undefined ? options.startBlock : base.number + 1n;
  if (from > latest) return { linked: [] as BlockHeader[], tipMismatch: false, events: new Map<Hex, E[]>() };
  const last = from + BigInt(state.rangeSize) - 1n;
  const to = last < latest ? last : latest;
  const headers = await options.headers.headersAt(range(from, to));
  const { linked, tipMismatch } = linkHeaders(base, headers);
  const events = linked.length === 0 ? new Map<Hex, E[]>() : await options.source.readBlocks(linked, latest);
  return { linked, tipMismatch, events };
}

function range(from: bigint, to: bigint): bigint[] {
  const numbers: bigint[] = [];
  for (let number = from; number <= to; number++) numbers.push(number);
  return numbers;
}

/** Commits the linked blocks read after the tip, reading the next range meanwhile while a backlog remains. */
async function commitRange<E>(
  state: FollowerState<E>,
  latest: bigint,
  linked: BlockHeader[],
  events: Map<Hex, E[]>,
): Promise<StepOutcome> {
  const { options } = state;
  const blocks = linked.map((header) => ({ header, events: events.get(header.hash) ?? [] }));
  const next = extendWindow(
    state.window,
    keptInWindow(
      options,
      blocks.map(({ header, events: blockEvents }) => ({
        block: { number: header.number, hash: header.hash },
        events: blockEvents,
      })),
    ),
    options.windowSize,
  );
  const last = linked[linked.length - 1]!;
  adapt(
    state,
    blocks.length,
    blocks.reduce((sum, block) => sum + block.events.length, 0),
  );
  // While a backlog remains, read the next range during the commit: the node and Kafka work
  // side by side. It is used only if this commit succeeds and the range still builds on it.
  const base = { number: last.number, hash: last.hash };
  if (last.number < latest) {
    const reading = readRange(state, base, latest).then(
      (read) =>
        read.tipMismatch || read.linked.length === 0
          ? undefined
          : { base, latest, linked: read.linked, events: read.events },
      () => undefined,
    );
    state.ahead = reading;
  }
  try {
    await options.commit({
      orphaned: [],
      blocks,
      tip: last,
      latestBlockNumber: latest,
      window: next.map((entry) => entry.block),
    });
  } catch (error) {
    state.ahead = undefined;
    throw error;
  }
  state.window = next;
  return { kind: "advanced", tip: last.number, latest };
}

/** The blocks as the window keeps them (`windowEvent` of each event). */
function keptInWindow<E>(options: BlockFollowerOptions<E>, blocks: WindowBlock<E>[]): WindowBlock<E>[] {
  const keep = options.windowEvent;
  return keep === undefined ? blocks : blocks.map(({ block, events }) => ({ block, events: events.map(keep) }));
}

/** Sizes the next range after a step: about `targetEvents` events, within [1, maxBlocksPerStep]. */
function adapt<E>(state: FollowerState<E>, blocks: number, events: number): void {
  if (blocks === 0) return;
  const perBlock = events / blocks;
  const size = perBlock === 0 ? state.options.maxBlocksPerStep : Math.floor(state.targetEvents / perBlock);
  state.rangeSize = Math.max(1, Math.min(state.options.maxBlocksPerStep, size));
}
