import { setTimeout as sleep } from "node:timers/promises";
import { createTransactionalPublisher, isProducerFencedError, type Kafka, type OutgoingRecord, type TransactionalPublisher } from "@platform/bus";
import type { ConfiguredChain } from "@platform/chain";
import type { Logger } from "@platform/log";
import type { Address, Client, Hex } from "viem";
import { createBlockFollower, ForkDuringReadError, ReorgBeyondWindowError, type FollowerCommit } from "../follower/blockFollower.js";
import type { BlockRef } from "../follower/blocks.js";
import { pollInterval, runFollowLoop } from "../follower/followLoop.js";
import { rpcHeaderReader } from "../follower/headerReader.js";
import { commitRecords } from "./commitRecords.js";
import { intentsBlockSource } from "./intentsBlockSource.js";
import type { IntentsEvent } from "./intentsEvent.js";
import { readLatestCheckpoints } from "./readCheckpoints.js";

export interface IntentsSourceOptions {
  kafka: Kafka;
  chain: ConfiguredChain & { contracts: { fullSettler: Address } };
  /** RPC client of the chain; a transport with batching on lets ranges go out in few requests. */
  client: Client;
  pollIntervalMs: number;
  maxBlocksPerStep: number;
  log: Logger;
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
  /** The poll interval while expedited (a notified transaction is about to be mined); 50 ms by default. */
  expeditedPollIntervalMs?: number;
  now?: () => Date;
}

export interface IntentsSourceStatus {
  /** Caught up with the node within the allowed lag, and publishing. */
  following: boolean;
  tip?: bigint;
  latest?: bigint;
}

export interface IntentsSource {
  readonly sourceId: string;
  readonly transactionalId: string;
  status(): IntentsSourceStatus;
  /** Publishes records in a transaction of this source's publisher; rejects while it restarts. */
  publish(records: readonly OutgoingRecord[]): Promise<void>;
  /**
   * Polls the chain every `expeditedPollIntervalMs` for the next `forMs`: a notified transaction
   * is about to be mined, and its block should be published as soon as the node has it.
   */
  expedite(forMs: number): void;
  stop(): Promise<void>;
}

/** A commit whose outcome only Kafka knows: the source restarts from its checkpoint. */
class CommitFailedError extends Error {
  override readonly name = "CommitFailedError";
}

/**
 * The intents source of one chain: follows its FullSettler from the last checkpoint and publishes
 * every step (removals, events, head, checkpoint) in one Kafka transaction with the transactional
 * id `chain-ingestor-<chain>`. After any failed commit it starts over from the checkpoint in Kafka,
 * since a commit that failed on the wire may still have been committed: the checkpoint, not this
 * process, knows. A second instance fences this one off (onFenced).
 */
export function startIntentsSource(options: IntentsSourceOptions): IntentsSource {
  const { kafka, chain, client, log } = options;
  const sourceId = `${chain.chainId}:intents`;
  const transactionalId = `chain-ingestor-${chain.name}`;
  const windowSize = chain.finality.finalizedDepth + (options.windowMargin ?? 16);
  const lag = BigInt(options.followingLagBlocks ?? 3);
  const now = options.now ?? (() => new Date());
  const abort = new AbortController();
  const source = intentsBlockSource({ client, chainId: chain.chainId, settler: chain.contracts.fullSettler, depths: chain.finality });
  const headers = rpcHeaderReader(client);
  let publisher: TransactionalPublisher | undefined;
  let tip: bigint | undefined;
  let latest: bigint | undefined;
  let publishing = false;
  // A notification shortens the pauses for a while (expedite); the loop reads the interval before every pause.
  const interval = pollInterval({ normalMs: options.pollIntervalMs, expeditedMs: options.expeditedPollIntervalMs ?? 50, now: () => now().getTime() });

  const send = async (current: TransactionalPublisher, records: readonly OutgoingRecord[]): Promise<void> => {
    // The publisher splits the records into produce requests the broker accepts (libs/bus sizedChunks).
    await current.runInTransaction((transaction) => transaction.send(records));
  };

  const restoreWindow = async (blocks: readonly BlockRef[]) => {
    const { window, unknown } = await source.recoverWindow(blocks);
    if (unknown.length > 0) {
      // Orphaned while this source was down and forgotten by the node: their events cannot be named
      // in removals. Say so loudly; the projections keep them until a rebuild.
      log.error(
        { chainId: chain.chainId, blocks: unknown.map((block) => ({ number: block.number.toString(), hash: block.hash })) },
        "kept blocks unknown to the node; events published for them cannot be removed",
      );
    }
    return window;
  };

  const runOnce = async (): Promise<void> => {
    const current = await createTransactionalPublisher(kafka, { transactionalId, logger: log });
    publisher = current;
    try {
      const checkpoint = (await readLatestCheckpoints(kafka, { sourceIds: [sourceId], logger: log })).get(sourceId);
      const kept = (checkpoint?.recentBlocks ?? []).map((block) => ({ number: BigInt(block.blockNumber), hash: block.blockHash.toLowerCase() as Hex }));
      const window = await restoreWindow(kept);
      tip = kept.at(-1)?.number;
      log.info({ chainId: chain.chainId, sourceId, resumeAfter: checkpoint?.blockNumber ?? null, kept: kept.length }, "intents source starting");
      publishing = true;
      const follower = createBlockFollower<IntentsEvent>({
        headers,
        source,
        windowSize,
        maxBlocksPerStep: options.maxBlocksPerStep,
        window,
        startBlock: options.startBlock ?? 0n,
        commit: async (step: FollowerCommit<IntentsEvent>) => {
          const started = performance.now();
          const records = commitRecords(step, { chainId: chain.chainId, sourceId, depths: chain.finality, now: now() });
          try {
            await send(current, records);
            log.debug(
              { chainId: chain.chainId, tip: step.tip.number.toString(), blocks: step.blocks.length, records: records.length, publishMs: Math.round(performance.now() - started) },
              "blocks published",
            );
          } catch (error) {
            if (isProducerFencedError(error)) throw error;
            throw new CommitFailedError(`could not publish blocks up to ${step.tip.number} of chain ${chain.chainId}`, { cause: error });
          }
          if (step.orphaned.length > 0) {
            log.warn(
              {
                chainId: chain.chainId,
                commonAncestor: step.tip.number.toString(),
                orphanedBlocks: step.orphaned.length,
                removedEvents: step.orphaned.reduce((sum, block) => sum + block.events.length, 0),
              },
              "chain reorganisation: removals published",
            );
          }
        },
      });
      await runFollowLoop({
        follower,
        pollIntervalMs: interval,
        signal: abort.signal,
        onStep: (outcome) => {
          latest = outcome.latest;
          tip = follower.tip()?.number;
        },
        onError: (error, failures) => {
          if (isProducerFencedError(error) || error instanceof CommitFailedError || error instanceof ReorgBeyondWindowError) return "stop";
          const level = error instanceof ForkDuringReadError || failures < 3 ? "debug" : "warn";
          log[level]({ err: error, chainId: chain.chainId, failures }, "reading the chain failed; retrying");
          return "retry";
        },
      });
    } finally {
      publishing = false;
      publisher = undefined;
      await current.disconnect().catch(() => undefined);
    }
  };

  const loop = (async () => {
    let failures = 0;
    while (!abort.signal.aborted) {
      if (options.topicsReady !== undefined && !options.topicsReady()) {
        await sleep(200, undefined, { signal: abort.signal }).catch(() => undefined);
        continue;
      }
      try {
        await runOnce();
        failures = 0;
      } catch (error) {
        if (isProducerFencedError(error)) {
          log.error({ err: error, transactionalId }, "another chain-ingestor instance took over this source; stopping");
          options.onFenced(error);
          return;
        }
        failures += 1;
        const level = error instanceof ReorgBeyondWindowError || failures >= 3 ? "error" : "warn";
        log[level]({ err: error, chainId: chain.chainId, failures }, "intents source stopped; restarting from its checkpoint");
        await sleep(Math.min(30_000, 500 * 2 ** Math.min(failures, 6)), undefined, { signal: abort.signal }).catch(() => undefined);
      }
    }
  })();

  return {
    sourceId,
    transactionalId,
    status: () => ({
      following: publishing && tip !== undefined && latest !== undefined && tip + lag >= latest,
      ...(tip === undefined ? {} : { tip }),
      ...(latest === undefined ? {} : { latest }),
    }),
    async publish(records) {
      const current = publisher;
      if (current === undefined || !publishing) throw new Error(`the intents source of chain ${chain.chainId} is restarting`);
      await send(current, records);
    },
    expedite(forMs) {
      interval.expedite(forMs);
    },
    async stop() {
      abort.abort();
      await loop;
    },
  };
}
