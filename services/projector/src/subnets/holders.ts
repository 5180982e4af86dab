import { HolderPositions } from "@platform/proto/events/v1/chain_network";

/**
 * Holder sets arrive in chunks (HolderPositions with chunk_index / chunk_count, all of one block).
 * A subnet's holder set is replaced only once every chunk of a block is there.
 */

/** Pending chunks of one subnet, by `<blockHash>:<chunkIndex>`. */
export type PendingChunks = Map<string, HolderPositions>;

export const chunkField = (blockHash: string, index: number) => `${blockHash.toLowerCase()}:${index}`;

/**
 * Adds a chunk. When it completes its block, the chunks of that block (and any older incomplete
 * block, which can no longer complete) leave `pending` and the whole set comes back as one
 * HolderPositions with chunk_count 1 and the positions in chunk order.
 */
export function addChunk(pending: PendingChunks, chunk: HolderPositions): HolderPositions | undefined {
  const ref = chunk.ref;
  if (ref === undefined) throw new Error("holder chunk without ChainRef");
  if (chunk.chunkCount < 1 || chunk.chunkIndex >= chunk.chunkCount)
    throw new Error(`bad chunk ${chunk.chunkIndex}/${chunk.chunkCount}`);
  const hash = ref.blockHash.toLowerCase();
  pending.set(chunkField(hash, chunk.chunkIndex), chunk);
  const ofBlock = [...pending.entries()].filter(([field]) => field.startsWith(`${hash}:`));
  if (ofBlock.length < chunk.chunkCount) return undefined;
  const chunks = ofBlock.map(([, value]) => value).sort((left, right) => left.chunkIndex - right.chunkIndex);
  const block = BigInt(ref.blockNumber);
  for (const [field, value] of [...pending.entries()]) {
    if (field.startsWith(`${hash}:`) || BigInt(value.ref?.blockNumber ?? "0") < block) pending.delete(field);
  }
  return {
    ref,
    netuid: chunk.netuid,
    coverage: chunk.coverage,
    chunkIndex: 0,
    chunkCount: 1,
    positions: chunks.flatMap((value) => value.positions),
  };
}

/** Drops the pending chunks of a block a reorganisation undid. */
export function dropChunks(pending: PendingChunks, blockHash: string): void {
  const prefix = `${blockHash.toLowerCase()}:`;
  for (const field of [...pending.keys()]) if (field.startsWith(prefix)) pending.delete(field);
}

export const encodeSet = (set: HolderPositions) => Buffer.from(HolderPositions.encode(set).finish()).toString("base64");
export const decodeChunk = (text: string) => HolderPositions.decode(Buffer.from(text, "base64"));
