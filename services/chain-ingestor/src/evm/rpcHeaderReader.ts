import { type Client, type Hex, toHex } from "viem";
import type { BlockHeader } from "../follower/blocks.js";
import type { HeaderReader } from "../follower/headerReader.js";

/** A block as `eth_getBlockBy*` answers it without its transactions (hex quantities). */
export interface RpcBlock {
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
