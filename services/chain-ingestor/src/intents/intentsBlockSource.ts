import type { Finality as FinalityDepths } from "@platform/chain";
import { type Address, type Client, type Hex, toHex } from "viem";
import type { RawLog } from "../evm/rawLog.js";
import { recoverWindow } from "../evm/recoverWindow.js";
import { type BlockSource, ForkDuringReadError } from "../follower/blockFollower.js";
import type { BlockHeader, BlockRef, RecoveredWindow } from "../follower/blocks.js";
import { finalityAt } from "../follower/finality.js";
import type { IntentsEvent } from "./intentsEvent.js";
import { decodeSettlerLog, followedTopics, settlerTopics } from "./settlerEvents.js";

export interface IntentsBlockSourceOptions {
  client: Client;
  chainId: number;
  settler: Address;
  depths: FinalityDepths;
}

export interface IntentsBlockSource extends BlockSource<IntentsEvent> {
  /** The events of kept blocks named by a checkpoint, read again by hash (evm/recoverWindow.ts). */
  recoverWindow(blocks: readonly BlockRef[]): Promise<RecoveredWindow<IntentsEvent>>;
}

/** Full blocks fetched together when looking up the senders of Open transactions. */
const FULL_BLOCKS_PER_REQUEST = 8;

interface RpcTransaction {
  hash: Hex;
  from: Hex;
}

interface RpcBlockWithTransactions {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
  transactions: RpcTransaction[];
}

/**
 * Reads FullSettler events for ranges of linked blocks: one eth_getLogs per range (the settler's
 * address and the four followed topics), every log checked against the header of its block, and
 * the full block (for each Open's sender) only where an Open was emitted.
 */
export function intentsBlockSource(options: IntentsBlockSourceOptions): IntentsBlockSource {
  const { client, chainId, settler, depths } = options;

  const getLogs = async (filter: { fromBlock: bigint; toBlock: bigint } | { blockHash: Hex }): Promise<RawLog[]> => {
    const params =
      "blockHash" in filter
        ? { address: settler, topics: [followedTopics], blockHash: filter.blockHash }
        : {
            address: settler,
            topics: [followedTopics],
            fromBlock: toHex(filter.fromBlock),
            toBlock: toHex(filter.toBlock),
          };
    try {
      return (await client.request({ method: "eth_getLogs", params: [params] as never })) as RawLog[];
    } catch (error) {
      // Providers cap results per call; halve a range until each half fits.
      if ("fromBlock" in filter && filter.toBlock > filter.fromBlock) {
        const middle = filter.fromBlock + (filter.toBlock - filter.fromBlock) / 2n;
        const [low, high] = await Promise.all([
          getLogs({ fromBlock: filter.fromBlock, toBlock: middle }),
          getLogs({ fromBlock: middle + 1n, toBlock: filter.toBlock }),
        ]);
        return [...low, ...high];
      }
      throw error;
    }
  };

  /** Senders of the Open transactions, from the full blocks they are in. */
  const sendersOf = async (logs: readonly RawLog[]): Promise<Map<Hex, Hex>> => {
    const blocks = [
      ...new Set(
        logs
          .filter((log) => log.topics[0]?.toLowerCase() === settlerTopics.open)
          .map((log) => log.blockHash.toLowerCase() as Hex),
      ),
    ];
    const senders = new Map<Hex, Hex>();
    // Full blocks are large (a busy block holds hundreds of Opens): a few per batched request.
    for (let start = 0; start < blocks.length; start += FULL_BLOCKS_PER_REQUEST) {
      const chunk = blocks.slice(start, start + FULL_BLOCKS_PER_REQUEST);
      const fetched = await Promise.all(
        chunk.map(
          (hash) =>
            client.request({
              method: "eth_getBlockByHash",
              params: [hash, true],
            }) as Promise<RpcBlockWithTransactions | null>,
        ),
      );
      fetched.forEach((block, index) => {
        if (block === null)
          throw new ForkDuringReadError(`block ${chunk[index]} vanished while its Open senders were read`);
        for (const transaction of block.transactions)
          senders.set(transaction.hash.toLowerCase() as Hex, transaction.from);
      });
    }
    return senders;
  };

  const decodeAll = async (
    logs: readonly RawLog[],
    headers: ReadonlyMap<Hex, BlockHeader>,
    latest: bigint,
  ): Promise<Map<Hex, IntentsEvent[]>> => {
    const senders = await sendersOf(logs);
    const events = new Map<Hex, IntentsEvent[]>();
    for (const log of logs) {
      const header = headers.get(log.blockHash.toLowerCase() as Hex);
      if (header === undefined)
        throw new ForkDuringReadError(`a log of block ${log.blockHash} was not among the blocks read`);
      const event = decodeSettlerLog(log, {
        chainId,
        header,
        finality: finalityAt(header.number, latest, depths),
        txFrom: (txHash) => senders.get(txHash),
      });
      if (event === undefined) continue;
      const list = events.get(header.hash) ?? [];
      list.push(event);
      events.set(header.hash, list);
    }
    for (const list of events.values()) list.sort((a, b) => (a.ref.logIndex ?? 0) - (b.ref.logIndex ?? 0));
    return events;
  };

  return {
    async readBlocks(headers, latest) {
      const first = headers[0];
      const last = headers[headers.length - 1];
      if (first === undefined || last === undefined) return new Map();
      const logs = await getLogs({ fromBlock: first.number, toBlock: last.number });
      const byNumber = new Map(headers.map((header) => [header.number, header] as const));
      for (const log of logs) {
        const header = byNumber.get(BigInt(log.blockNumber));
        // The node answered from another fork than the headers: nothing of this range is used.
        if (log.removed === true || header === undefined || header.hash !== log.blockHash.toLowerCase()) {
          throw new ForkDuringReadError(
            `logs of block ${BigInt(log.blockNumber)} belong to ${log.blockHash}, not to the block read`,
          );
        }
      }
      return decodeAll(logs, new Map(headers.map((header) => [header.hash, header] as const)), latest);
    },

    recoverWindow(blocks) {
      return recoverWindow(client, blocks, async (known, latest) => {
        const logs = (await Promise.all(known.map((header) => getLogs({ blockHash: header.hash })))).flat();
        return decodeAll(logs, new Map(known.map((header) => [header.hash, header] as const)), latest);
      });
    },
  };
}
