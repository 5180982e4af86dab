import { setTimeout as sleep } from "node:timers/promises";
import {
  createTransactionalPublisher,
  isProducerFencedError,
  type Kafka,
  type OutgoingRecord,
  type TransactionalPublisher,
} from "@platform/bus";
import type { ConfiguredChain } from "@platform/chain";
import { backoffDelay, PlatformError, retryDelay, TransientError } from "@platform/errors/base";
import type { Logger } from "@platform/log";
import type { Checkpoint } from "@platform/proto/events/v1/ingestor_checkpoints";
import type { Client, Hex } from "viem";
import {
  type BlockSource,
  createBlockFollower,
  type FollowerCommit,
  ForkDuringReadError,
  ReorgBeyondWindowError,
} from "./blockFollower.js";
import type { BlockRef, RecoveredWindow, WindowBlock } from "./blocks.js";
import { type PollInterval, runFollowLoop } from "./followLoop.js";
import type { HeaderReader } from "./headerReader.js";
import { finalizedByDepth, type IngestMetrics, type SourceMetrics } from "./ingestMetrics.js";
import { ingestTracing } from "./ingestSpan.js";
import { readLatestCheckpoints } from "./readCheckpoints.js";

/** How any source follows its chain: the settings the intents, native and price sources share. */
export interface FollowerSettings {
  kafka: Kafka;
  /** RPC client of the chain; a transport with batching on lets ranges go out in few requests. */
  client: Client;
  log: Logger;
  maxBlocksPerStep: number;
  /** Blocks kept beyond the finalized depth to detect reorganisations; 16 by default. */
  windowMargin?: number;
  /** Where a source without a checkpoint starts; block 0 by default. */
  startBlock?: bigint;
  /** Within this many blocks of the node's head the source counts as following; 3 by default. */
  followingLagBlocks?: number;
  /** True once the topics the source writes exist; the source waits for it before it starts. */
  topicsReady?: () => boolean;
  /** Another instance took over the transactional id: this process must stop (the orchestrator restarts it). */
  onFenced(error: unknown): void;
  now?: () => Date;
  /** Where the source reports the chain's head, finality and what it published (`ingest_*`); none without it. */
  metrics?: IngestMetrics;
}

/** What a kind of source (intents, network) brings to the shared follow-and-publish loop. */
export interface FollowerSourceOptions<E> extends Omit<FollowerSettings, "client"> {
  /** The chain as the checkpoints and logs name it (an EVM chain, or the native network's Substrate side). */
  chain: Pick<ConfiguredChain, "chainId" | "finality">;
  /** How the follower reads the node's head and headers (JSON-RPC of an EVM node, or Substrate's). */
  headers: HeaderReader;
  /** Names the source in its log lines: "intents", "network". */
  kind: string;
  /** The checkpoint's key, e.g. `31337:intents`. */
  sourceId: string;
  /** One per source: a second process with the same id fences the first off. */
  transactionalId: string;
  blocks: BlockSource<E> & {
    /** The kept blocks the node still has, with their events read again; and those it forgot. */
    recoverWindow(blocks: readonly BlockRef[]): Promise<RecoveredWindow<E>>;
  };
  /** Everything one step publishes (removals, records, checkpoint), in order, for one transaction. */
  toRecords(step: FollowerCommit<E>, now: Date): OutgoingRecord[];
  /** What the window keeps of each published event (blockFollower's `windowEvent`); the whole event by default. */
  windowEvent?(event: E): E;
  /** Called once the checkpoint is read, before the first step: a source may prime its first block. */
  onResume?(checkpoint: Checkpoint | undefined): void;
  pollIntervalMs: number | PollInterval;
  /**
   * The newest finalized block given the node's latest, or undefined while unknown; the chain's
   * configured finalized depth below the head by default.
   */
  finalizedBlock?(latest: bigint): bigint | undefined;
}

export interface FollowerSourceStatus {
  /** Caught up with the node within the allowed lag, and publishing. */
  following: boolean;
  tip?: bigint;
  latest?: bigint;
}

export interface FollowerSource {
  readonly sourceId: string;
  readonly transactionalId: string;
  status(): FollowerSourceStatus;
  /** Publishes records in a transaction of this source's publisher; rejects while it restarts. */
  publish(records: readonly OutgoingRecord[]): Promise<void>;
  stop(): Promise<void>;
}

/** A single failed read is a blink; this many in a row and the source is not following. */
const FAILING_STEPS_NOT_FOLLOWING = 2;

/** A commit whose outcome only Kafka knows: the source restarts from its checkpoint. */
class CommitFailedError extends PlatformError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, { code: "COMMIT_FAILED", retryable: true, cause: options?.cause });
  }
}

/**
 * Follows one chain from the source's last checkpoint and publishes every step (removals, records,
 * checkpoint) in one Kafka transaction. After any failed commit it starts over from the checkpoint
 * in Kafka, since a commit that failed on the wire may still have been committed: the checkpoint,
 * not this process, knows. A second instance with the same transactional id fences this one off.
 */
export function startFollowerSource<E>(options: FollowerSourceOptions<E>): FollowerSource {
  const { chain, kind, sourceId, transactionalId } = options;
  const lag = BigInt(options.followingLagBlocks ?? 3);
  const state: SourceState<E> = {
    options,
    windowSize: chain.finality.finalizedDepth + (options.windowMargin ?? 16),
    now: options.now ?? (() => new Date()),
    abort: new AbortController(),
    publisher: undefined,
    tip: undefined,
    latest: undefined,
    publishing: false,
    failingSteps: 0,
    metrics: options.metrics?.source(sourceId),
  };

  const loop = restartUntilStopped(state);

  return {
    sourceId,
    transactionalId,
    status: () => {
      const { publishing, failingSteps, tip, latest } = state;
      return {
        following:
          publishing &&
          failingSteps < FAILING_STEPS_NOT_FOLLOWING &&
          tip !== undefined &&
          latest !== undefined &&
          tip + lag >= latest,
        ...(tip === undefined ? {} : { tip }),
        ...(latest === undefined ? {} : { latest }),
      };
    },
    async publish(records) {
      const current = state.publisher;
      if (current === undefined || !state.publishing)
        throw new TransientError(`the ${kind} source of chain ${chain.chainId} is restarting`);
      await send(current, records);
    },
    async stop() {
      state.abort.abort();
      await loop;
    },
  };
}

/** A source's settings and what its runs (one per restart) leave for its status and `publish`. */
interface SourceState<E> {
  readonly options: FollowerSourceOptions<E>;
  readonly windowSize: number;
  readonly now: () => Date;
  readonly abort: AbortController;
  publisher: TransactionalPublisher | undefined;
  tip: bigint | undefined;
  latest: bigint | undefined;
  publishing: boolean;
  // Steps failing one after another: the node (or the way to it) is not answering, whatever the tip says.
  failingSteps: number;
  readonly metrics: SourceMetrics | undefined;
}

/** Runs the source until it is stopped or fenced off, starting over from its checkpoint after each failure. */
async function restartUntilStopped<E>(state: SourceState<E>): Promise<void> {
  const { options, abort } = state;
  const { log, kind, chain, transactionalId } = options;
  let failures = 0;
  while (!abort.signal.aborted) {
    if (options.topicsReady !== undefined && !options.topicsReady()) {
      await sleep(200, undefined, { signal: abort.signal }).catch(() => undefined);
      continue;
    }
    try {
      await runOnce(state);
      failures = 0;
    } catch (error) {
      if (isProducerFencedError(error)) {
        log.error(
          { err: error, transactionalId },
          `another chain-ingestor instance took over the ${kind} source; stopping`,
        );
        options.onFenced(error);
        return;
      }
      failures += 1;
      // A fork deeper than the window is what restarting from the checkpoint exists for; any other
      // error that says trying again cannot succeed stops the source.
      const delay =
        error instanceof ReorgBeyondWindowError
          ? backoffDelay(failures, { firstMs: 500, maxMs: 30_000 })
          : retryDelay(error, failures, { firstMs: 500, maxMs: 30_000 });
      if (delay === undefined) {
        if (!abort.signal.aborted)
          log.error(
            { err: error, chainId: chain.chainId },
            `${kind} source stopped by an error that a restart cannot mend`,
          );
        return;
      }
      const level = error instanceof ReorgBeyondWindowError || failures >= 3 ? "error" : "warn";
      log[level](
        { err: error, chainId: chain.chainId, failures },
        `${kind} source stopped; restarting from its checkpoint`,
      );
      await sleep(delay, undefined, { signal: abort.signal }).catch(() => undefined);
    }
  }
}

/** One run: a new publisher, the window restored from the checkpoint, then the follow loop until it stops. */
async function runOnce<E>(state: SourceState<E>): Promise<void> {
  const { options } = state;
  const { kafka, chain, log, kind, sourceId, transactionalId, blocks } = options;
  const current = await createTransactionalPublisher(kafka, { transactionalId, logger: log });
  state.publisher = current;
  try {
    const checkpoint = (await readLatestCheckpoints(kafka, { sourceIds: [sourceId], logger: log })).get(sourceId);
    const kept = (checkpoint?.recentBlocks ?? []).map((block) => ({
      number: BigInt(block.blockNumber),
      hash: block.blockHash.toLowerCase() as Hex,
    }));
    const window = await restoreWindow(options, kept);
    options.onResume?.(checkpoint);
    state.tip = kept.at(-1)?.number;
    if (state.tip !== undefined) state.metrics?.published(state.tip);
    log.info(
      { chainId: chain.chainId, sourceId, resumeAfter: checkpoint?.blockNumber ?? null, kept: kept.length },
      `${kind} source starting`,
    );
    state.publishing = true;
    const tracing = ingestTracing(kind, chain.chainId);
    const follower = createBlockFollower<E>({
      headers: options.headers,
      source: blocks,
      windowSize: state.windowSize,
      maxBlocksPerStep: options.maxBlocksPerStep,
      window,
      ...(options.windowEvent === undefined ? {} : { windowEvent: options.windowEvent }),
      startBlock: options.startBlock ?? 0n,
      commit: (step) => tracing.commit(step, () => commitStep(state, current, step)),
    });
    await runFollowLoop({
      follower: tracing.follower(follower),
      pollIntervalMs: options.pollIntervalMs,
      signal: state.abort.signal,
      onStep: (outcome) => {
        state.latest = outcome.latest;
        state.tip = follower.tip()?.number;
        state.failingSteps = 0;
        if (state.metrics !== undefined) {
          state.metrics.head(outcome.latest);
          const finalized = options.finalizedBlock
            ? options.finalizedBlock(outcome.latest)
            : finalizedByDepth(outcome.latest, chain.finality.finalizedDepth);
          if (finalized !== undefined) state.metrics.finalized(finalized);
        }
      },
      onError: (error, failures) => {
        state.failingSteps = failures;
        return retryOrStop(options, error, failures);
      },
    });
  } finally {
    state.publishing = false;
    state.publisher = undefined;
    await current.disconnect().catch(() => undefined);
  }
}

async function restoreWindow<E>(
  options: FollowerSourceOptions<E>,
  kept: readonly BlockRef[],
): Promise<WindowBlock<E>[]> {
  const { blocks, log, chain } = options;
  const { window, unknown } = await blocks.recoverWindow(kept);
  if (unknown.length > 0) {
    // Orphaned while this source was down and forgotten by the node: their records cannot be named
    // in removals. Say so loudly; the projections keep them until a rebuild.
    log.error(
      {
        chainId: chain.chainId,
        blocks: unknown.map((block) => ({ number: block.number.toString(), hash: block.hash })),
      },
      "kept blocks unknown to the node; records published for them cannot be removed",
    );
  }
  return window;
}

async function commitStep<E>(
  state: SourceState<E>,
  current: TransactionalPublisher,
  step: FollowerCommit<E>,
): Promise<void> {
  const { options } = state;
  const { chain, log, kind } = options;
  const started = performance.now();
  const records = options.toRecords(step, state.now());
  try {
    await send(current, records);
  } catch (error) {
    if (isProducerFencedError(error)) throw error;
    throw new CommitFailedError(`could not publish blocks up to ${step.tip.number} of chain ${chain.chainId}`, {
      cause: error,
    });
  }
  state.metrics?.published(step.tip.number, Date.now());
  log.debug(
    {
      chainId: chain.chainId,
      source: kind,
      tip: step.tip.number.toString(),
      blocks: step.blocks.length,
      records: records.length,
      publishMs: Math.round(performance.now() - started),
    },
    "blocks published",
  );
  if (step.orphaned.length > 0) {
    log.warn(
      {
        chainId: chain.chainId,
        source: kind,
        commonAncestor: step.tip.number.toString(),
        orphanedBlocks: step.orphaned.length,
        removedRecords: step.orphaned.reduce((sum, block) => sum + block.events.length, 0),
      },
      "chain reorganisation: removals published",
    );
  }
}

// The publisher splits the records into produce requests the broker accepts (libs/bus sizedChunks).
function send(current: TransactionalPublisher, records: readonly OutgoingRecord[]): Promise<void> {
  return current.runInTransaction((transaction) => transaction.send(records));
}

/** A failed step: the run stops on a fenced producer, a failed commit or a fork deeper than the window, and retries otherwise. */
function retryOrStop<E>(options: FollowerSourceOptions<E>, error: unknown, failures: number): "retry" | "stop" {
  const { log, chain, kind } = options;
  if (isProducerFencedError(error) || error instanceof CommitFailedError || error instanceof ReorgBeyondWindowError)
    return "stop";
  const level = error instanceof ForkDuringReadError || failures < 3 ? "debug" : "warn";
  log[level]({ err: error, chainId: chain.chainId, source: kind, failures }, "reading the chain failed; retrying");
  return "retry";
}
