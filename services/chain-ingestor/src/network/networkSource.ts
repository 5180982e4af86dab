import { setTimeout as sleep } from "node:timers/promises";
import { createTransactionalPublisher, isProducerFencedError, type Kafka, type OutgoingRecord, type TransactionalPublisher } from "@platform/bus";
import type { ConfiguredChain } from "@platform/chain";
import type { Logger } from "@platform/log";
import type { Address, Client, Hex } from "viem";
import { createBlockFollower, ForkDuringReadError, ReorgBeyondWindowError, type FollowerCommit } from "../follower/blockFollower.js";
import { runFollowLoop } from "../follower/followLoop.js";
import { rpcHeaderReader } from "../follower/headerReader.js";
import { readLatestCheckpoints } from "../intents/readCheckpoints.js";
import { commitNetworkRecords } from "./commitNetworkRecords.js";
import { networkBlockSource } from "./networkBlockSource.js";
import type { NetworkRecord } from "./networkRecord.js";
import { networkStateReader } from "./networkState.js";

export type NativeChain = ConfiguredChain & { contracts: { multicall3: Address } };

export interface NetworkSourceOptions {
  kafka: Kafka;
  chain: NativeChain;
  client: Client;
  pollIntervalMs: number;
  maxBlocksPerStep: number;
  snapshotEveryBlocks: number;
  holderChunkSize: number;
  /** Netuids probed for existence (0 up to this bound). */
  maxNetuids: number;
  log: Logger;
  windowMargin?: number;
  startBlock?: bigint;
  followingLagBlocks?: number;
  topicsReady?: () => boolean;
  onFenced(error: unknown): void;
  now?: () => Date;
}

export interface NetworkSourceStatus {
  following: boolean;
  tip?: bigint;
  latest?: bigint;
}

export interface NetworkSource {
  readonly sourceId: string;
  readonly transactionalId: string;
  status(): NetworkSourceStatus;
  stop(): Promise<void>;
}

/** The network's coin, whose USD price the feed gives (TAO/USD); whatever the chain file calls its native currency. */
const COIN_SYMBOL = "TAO";


class CommitFailedError extends Error {
  override readonly name = "CommitFailedError";
}

/**
 * The native network source: follows the chain with role "native" from its checkpoint
 * (`<chainId>:network`) and publishes every step (removals, records on chain.network.v1 and
 * oracle.prices.v1, checkpoint) in one Kafka transaction with the transactional id
 * `chain-ingestor-network-<chain>`. The restart, fencing and reorganisation rules are the intents
 * source's: after a failed commit it starts over from the checkpoint Kafka holds.
 */
export function startNetworkSource(options: NetworkSourceOptions): NetworkSource {
  const { kafka, chain, client, log } = options;
  const sourceId = `${chain.chainId}:network`;
  const transactionalId = `chain-ingestor-network-${chain.name}`;
  const windowSize = chain.finality.finalizedDepth + (options.windowMargin ?? 16);
  const lag = BigInt(options.followingLagBlocks ?? 3);
  const now = options.now ?? (() => new Date());
  const abort = new AbortController();
  const source = networkBlockSource({
    client,
    chainId: chain.chainId,
    multicall3: chain.contracts.multicall3,
    depths: chain.finality,
    state: networkStateReader({
      client,
      multicall3: chain.contracts.multicall3,
      maxNetuids: options.maxNetuids,
      onStorageDecodeError: (item, error) =>
        log.warn({ chainId: chain.chainId, item, err: error }, "a storage value does not decode as its item's type; left out of the snapshot"),
    }),
    snapshotEveryBlocks: options.snapshotEveryBlocks,
    holderChunkSize: options.holderChunkSize,
    ...(chain.contracts.priceFeed === undefined
      ? {}
      : { priceFeed: { chainId: chain.chainId, feed: chain.contracts.priceFeed, asset: COIN_SYMBOL, vs: "usd" } }),
  });
  const headers = rpcHeaderReader(client);
  let tip: bigint | undefined;
  let latest: bigint | undefined;
  let publishing = false;

  const send = async (current: TransactionalPublisher, records: readonly OutgoingRecord[]): Promise<void> => {
    // The publisher splits the records into produce requests the broker accepts (libs/bus sizedChunks).
    await current.runInTransaction((transaction) => transaction.send(records));
  };

  const runOnce = async (): Promise<void> => {
    const current = await createTransactionalPublisher(kafka, { transactionalId, logger: log });
    try {
      const checkpoint = (await readLatestCheckpoints(kafka, { sourceIds: [sourceId], logger: log })).get(sourceId);
      const kept = (checkpoint?.recentBlocks ?? []).map((block) => ({ number: BigInt(block.blockNumber), hash: block.blockHash.toLowerCase() as Hex }));
      const { window, unknown } = await source.recoverWindow(kept);
      if (unknown.length > 0) {
        log.error(
          { chainId: chain.chainId, blocks: unknown.map((block) => ({ number: block.number.toString(), hash: block.hash })) },
          "kept blocks unknown to the node; records published for them cannot be removed",
        );
      }
      if (checkpoint === undefined) source.publishLatestPriceOnNextBlock();
      tip = kept.at(-1)?.number;
      log.info({ chainId: chain.chainId, sourceId, resumeAfter: checkpoint?.blockNumber ?? null, kept: kept.length }, "network source starting");
      publishing = true;
      const follower = createBlockFollower<NetworkRecord>({
        headers,
        source,
        windowSize,
        maxBlocksPerStep: options.maxBlocksPerStep,
        // Snapshots make every block dense: small steps keep each transaction modest.
        targetEventsPerStep: 2_000,
        window,
        startBlock: options.startBlock ?? 0n,
        commit: async (step: FollowerCommit<NetworkRecord>) => {
          const started = performance.now();
          const records = commitNetworkRecords(step, { chainId: chain.chainId, sourceId, now: now() });
          try {
            await send(current, records);
          } catch (error) {
            if (isProducerFencedError(error)) throw error;
            throw new CommitFailedError(`could not publish blocks up to ${step.tip.number} of chain ${chain.chainId}`, { cause: error });
          }
          log.debug(
            { chainId: chain.chainId, tip: step.tip.number.toString(), blocks: step.blocks.length, records: records.length, publishMs: Math.round(performance.now() - started) },
            "network blocks published",
          );
          if (step.orphaned.length > 0) {
            log.warn(
              {
                chainId: chain.chainId,
                commonAncestor: step.tip.number.toString(),
                orphanedBlocks: step.orphaned.length,
                removedRecords: step.orphaned.reduce((sum, block) => sum + block.events.length, 0),
              },
              "chain reorganisation: removals published",
            );
          }
        },
      });
      await runFollowLoop({
        follower,
        pollIntervalMs: options.pollIntervalMs,
        signal: abort.signal,
        onStep: (outcome) => {
          latest = outcome.latest;
          tip = follower.tip()?.number;
        },
        onError: (error, failures) => {
          if (isProducerFencedError(error) || error instanceof CommitFailedError || error instanceof ReorgBeyondWindowError) return "stop";
          const level = error instanceof ForkDuringReadError || failures < 3 ? "debug" : "warn";
          log[level]({ err: error, chainId: chain.chainId, failures }, "reading the network failed; retrying");
          return "retry";
        },
      });
    } finally {
      publishing = false;
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
          log.error({ err: error, transactionalId }, "another chain-ingestor instance took over the network source; stopping");
          options.onFenced(error);
          return;
        }
        failures += 1;
        const level = error instanceof ReorgBeyondWindowError || failures >= 3 ? "error" : "warn";
        log[level]({ err: error, chainId: chain.chainId, failures }, "network source stopped; restarting from its checkpoint");
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
    async stop() {
      abort.abort();
      await loop;
    },
  };
}
