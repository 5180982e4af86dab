import type { Client, Hex } from "viem";
import type { BlockHeader, BlockRef, RecoveredWindow } from "../follower/blocks.js";
import { type RpcBlock, toHeader } from "./rpcHeaderReader.js";

/**
 * The events of kept blocks named by a checkpoint, read again from the node by block hash, so a
 * restarted ingestor can still name them in removals. Blocks the node no longer knows (orphaned
 * while the ingestor was down, and forgotten) come back in `unknown`, with no events. `readEvents`
 * reads the known blocks' events, by block hash, the way the source reads a range.
 */
export async function recoverWindow<E>(
  client: Client,
  blocks: readonly BlockRef[],
  readEvents: (headers: readonly BlockHeader[], latest: bigint) => Promise<ReadonlyMap<Hex, readonly E[]>>,
): Promise<RecoveredWindow<E>> {
  const latest = BigInt(await client.request({ method: "eth_blockNumber" }));
  const headers = (
    await Promise.all(
      blocks.map(
        (block) =>
          client.request({ method: "eth_getBlockByHash", params: [block.hash, false] }) as Promise<RpcBlock | null>,
      ),
    )
  ).map((block) => (block === null ? undefined : toHeader(block)));
  const known = headers.filter((header): header is BlockHeader => header !== undefined);
  const events = await readEvents(known, latest);
  const unknown = blocks.filter((_, index) => headers[index] === undefined);
  const window = blocks.map((block, index) => {
    const header = headers[index];
    return { block, events: header === undefined ? [] : (events.get(header.hash) ?? []) };
  });
  return { window, unknown };
}
