import { type Client, type Hex, toHex } from "viem";
import type { BlockHeader } from "./blocks.js";

/** What the follower asks the node. */
export interface HeaderReader {
  latestBlockNumber(): Promise<bigint>;
  /** Headers at the given heights, in the order asked; a height the node does not have yet is left out. */
  headersAt(numbers: readonly bigint[]): Promise<BlockHeader[]>;
}

interface RpcBlock {
  number: Hex;
  hash: Hex;
  parentHash: Hex;
  timestamp: Hex;
}

/**
 * Reads headers with raw JSON-RPC calls (no transaction bodies, no formatting), issued together so
 * a transport with batching on sends a range as a few HTTP requests.
 */
export function rpcHeaderReader(client: Client): HeaderReader {
  return {
    async latestBlockNumber() {
      return BigInt(await client.request({ method: "eth_blockNumber" }));
    },
    async headersAt(numbers) {
      const blocks = await Promise.all(
        numbers.map(
          (number) =>
            client.request({
              method: "eth_getBlockByNumber",
              params: [toHex(number), false],
            }) as Promise<RpcBlock | null>,
        ),
      );
      return blocks.filter((block): block is RpcBlock => block !== null).map(toHeader);
    },
  };
}

export function toHeader(block: RpcBlock): BlockHeader {
  return {
    number: BigInt(block.number),
    hash: block.hash.toLowerCase() as Hex,
    parentHash: block.parentHash.toLowerCase() as Hex,
    timestamp: BigInt(block.timestamp),
  };
}
