import type { Finality as FinalityDepths } from "@platform/chain";
import type { ChainRef } from "@platform/proto/common/v1/common";
import { type Client, type Hex, toHex } from "viem";
import type { RawLog } from "../evm/rawLog.js";
import { recoverWindow } from "../evm/recoverWindow.js";
import { type BlockSource, ForkDuringReadError } from "../follower/blockFollower.js";
import type { BlockHeader, BlockRef, RecoveredWindow } from "../follower/blocks.js";
import { finalityAt } from "../follower/finality.js";
import { type FeedReads, feedReads } from "./feedReads.js";
import { answerUpdatedTopic, decodeAnswerUpdated, type PriceFeedIdentity, priceRecord } from "./priceFeed.js";
import type { PriceRecord } from "./priceRecord.js";

export interface PriceBlockSourceOptions {
  client: Client;
  depths: FinalityDepths;
  /** The feed and what its rounds price (asset / vs); its decimals are read from the feed. */
  feed: Omit<PriceFeedIdentity, "decimals">;
}

export interface PriceBlockSource extends BlockSource<PriceRecord> {
  /** The records of kept blocks named by a checkpoint, read again by hash (evm/recoverWindow.ts). */
  recoverWindow(blocks: readonly BlockRef[]): Promise<RecoveredWindow<PriceRecord>>;
  /**
   * The next blocks read also publish the feed's latest round, at the first of them where the feed
   * has one: a source starting without a checkpoint (possibly near the head) then has a price at
   * once instead of waiting for the feed's next round.
   */
  publishLatestPriceOnNextBlock(): void;
}

/**
 * Reads the price feed's `AnswerUpdated` logs of a range with one `eth_getLogs`, each checked
 * against the linked header of its block, and turns each into a PriceObserved record whose ref
 * names its transaction and log.
 */
export function priceBlockSource(options: PriceBlockSourceOptions): PriceBlockSource {
  const { client, depths, feed } = options;
  const context: PriceReadContext = { client, depths, feed, reads: feedReads(client, feed.feed) };
  let latestPriceDue = false;

  return {
    publishLatestPriceOnNextBlock() {
      latestPriceDue = true;
    },

    async readBlocks(headers, latest) {
      const first = headers[0];
      const last = headers[headers.length - 1];
      if (first === undefined || last === undefined) return new Map();
      const logs = logsByBlock(
        await priceLogs(context, { fromBlock: first.number, toBlock: last.number }),
        new Map(headers.map((header) => [header.number, header] as const)),
      );
      const records = new Map<Hex, PriceRecord[]>();
      // Settled as soon as a block of the range has a round. A failed commit restarts the source from
      // its checkpoint, and a source still without one is asked for the latest round again (onResume).
      let priceDue = latestPriceDue;
      for (const header of headers) {
        const read = await readBlock(context, header, latest, logs.get(header.hash) ?? [], priceDue);
        if (read.priced) priceDue = false;
        if (read.records.length > 0) records.set(header.hash, read.records);
      }
      latestPriceDue = priceDue;
      return records;
    },

    recoverWindow(blocks) {
      return recoverWindow(client, blocks, async (known, latest) => {
        const records = new Map<Hex, PriceRecord[]>();
        for (const header of known) {
          const logs = logsByBlock(
            await priceLogs(context, { blockHash: header.hash }),
            new Map([[header.number, header] as const]),
          );
          records.set(
            header.hash,
            (await readBlock(context, header, latest, logs.get(header.hash) ?? [], false)).records,
          );
        }
        return records;
      });
    },
  };
}

/** What reading the feed's blocks needs: the node, the finality depths, the feed and its reads. */
interface PriceReadContext {
  client: Client;
  depths: FinalityDepths;
  feed: Omit<PriceFeedIdentity, "decimals">;
  reads: FeedReads;
}

interface PriceBlockRead {
  records: PriceRecord[];
  priced: boolean;
}

async function priceLogs(
  context: PriceReadContext,
  filter: { fromBlock: bigint; toBlock: bigint } | { blockHash: Hex },
): Promise<RawLog[]> {
  const range =
    "blockHash" in filter
      ? { blockHash: filter.blockHash }
      : { fromBlock: toHex(filter.fromBlock), toBlock: toHex(filter.toBlock) };
  return (await context.client.request({
    method: "eth_getLogs",
    params: [{ address: context.feed.feed, topics: [answerUpdatedTopic], ...range }] as never,
  })) as RawLog[];
}

/** The logs by the hash of their block; a log of another block than the header read means the node switched forks. */
function logsByBlock(logs: readonly RawLog[], headers: ReadonlyMap<bigint, BlockHeader>): Map<Hex, RawLog[]> {
  const grouped = new Map<Hex, RawLog[]>();
  for (const log of logs) {
    const header = headers.get(BigInt(log.blockNumber));
    if (log.removed === true || header === undefined || header.hash !== log.blockHash.toLowerCase()) {
      throw new ForkDuringReadError(
        `logs of block ${BigInt(log.blockNumber)} belong to ${log.blockHash}, not to the block read`,
      );
    }
    const list = grouped.get(header.hash) ?? [];
    list.push(log);
    grouped.set(header.hash, list);
  }
  for (const list of grouped.values()) list.sort((a, b) => Number(BigInt(a.logIndex) - BigInt(b.logIndex)));
  return grouped;
}

/** The block's records, and whether they include a round (which settles a pending latest round). */
async function readBlock(
  context: PriceReadContext,
  header: BlockHeader,
  latest: bigint,
  logs: readonly RawLog[],
  withLatestPrice: boolean,
): Promise<PriceBlockRead> {
  const { feed, reads } = context;
  const ref = refOf(context, header, latest);
  const records: PriceRecord[] = [];
  if (logs.length > 0) {
    const identity = { ...feed, decimals: await reads.decimals(header.hash) };
    for (const log of logs) {
      const round = decodeAnswerUpdated(log);
      if (round === undefined) continue;
      records.push(
        priceRecord(
          round,
          {
            ...ref,
            txHash: log.transactionHash.toLowerCase(),
            txIndex: Number(log.transactionIndex),
            logIndex: Number(log.logIndex),
          },
          identity,
        ),
      );
    }
    // The block's own rounds are newer than or equal to any latest round read before it.
    return { records, priced: true };
  }
  if (withLatestPrice) {
    const round = await reads.latestRound(header.hash);
    if (round !== undefined) {
      records.push(priceRecord(round, ref, { ...feed, decimals: await reads.decimals(header.hash) }));
      return { records, priced: true };
    }
  }
  return { records, priced: false };
}

function refOf(context: PriceReadContext, header: BlockHeader, latest: bigint): ChainRef {
  return {
    chainId: String(context.feed.chainId),
    blockNumber: header.number.toString(),
    blockHash: header.hash,
    parentHash: header.parentHash,
    blockTimestamp: new Date(Number(header.timestamp) * 1_000).toISOString(),
    finality: finalityAt(header.number, latest, context.depths),
  };
}
