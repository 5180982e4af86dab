import { priceFeedAbi } from "@platform/subtensor";
import {
  type Address,
  BaseError,
  type Client,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  type Hex,
} from "viem";
import { readContract } from "viem/actions";
import { isUnknownBlockError } from "../evm/unknownBlock.js";
import { ForkDuringReadError } from "../follower/blockFollower.js";
import type { PriceRound } from "./priceFeed.js";

/** Reads of one Chainlink-style aggregator at a block named by its hash, the block the follower linked. */
export interface FeedReads {
  /** `decimals()` at the block; read once, since an aggregator's decimals are immutable. */
  decimals(blockHash: Hex): Promise<number>;
  /** `latestRoundData()` at the block; undefined where the feed has no code yet or no round. */
  latestRound(blockHash: Hex): Promise<PriceRound | undefined>;
}

/**
 * Plain `eth_call`s by block hash (EIP-1898): two reads at most per fresh start, so no Multicall3 is
 * needed and the feed can live on any chain. A node that no longer knows the block makes the step be
 * read again (ForkDuringReadError).
 */
export function feedReads(client: Client, feed: Address): FeedReads {
  let decimals: number | undefined;

  const read = async <F extends "decimals" | "latestRoundData">(functionName: F, blockHash: Hex) => {
    try {
      return await readContract(client, { address: feed, abi: priceFeedAbi, functionName, blockHash });
    } catch (error) {
      if (isUnknownBlockError(error))
        throw new ForkDuringReadError(`block ${blockHash} is unknown to the node`, { cause: error });
      throw error;
    }
  };

  return {
    async decimals(blockHash) {
      if (decimals === undefined) {
        try {
          decimals = Number(await read("decimals", blockHash));
        } catch (error) {
          if (error instanceof ForkDuringReadError) throw error;
          throw new Error(`the price feed ${feed} answered no decimals() at block ${blockHash}`, { cause: error });
        }
      }
      return decimals;
    },

    async latestRound(blockHash) {
      let round: Awaited<ReturnType<typeof read<"latestRoundData">>>;
      try {
        round = await read("latestRoundData", blockHash);
      } catch (error) {
        // Before the feed's deployment the address has no code; a feed without a round reverts
        // ("No data present"). Either way there is no round to publish at this block.
        if (isNoRound(error)) return undefined;
        throw error;
      }
      const [roundId, answer, , updatedAt] = round;
      return roundId > 0n ? { roundId, answer, updatedAt } : undefined;
    },
  };
}

function isNoRound(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return (
    error.walk(
      (cause) => cause instanceof ContractFunctionZeroDataError || cause instanceof ContractFunctionRevertedError,
    ) !== null
  );
}
