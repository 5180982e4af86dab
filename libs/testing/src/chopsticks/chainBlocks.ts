/**
 * A chain's blocks as plain JSON, taken from one chopsticks node and put onto another that runs
 * the same genesis: each block's header, extrinsics and the storage it changed. The runtime built
 * them once; a node given them serves those very blocks (same hashes, events and state) without
 * executing them again, and builds its next blocks on top as usual.
 *
 * Why: seeding the native network runs a few hundred runtime calls under chopsticks' wasm
 * interpreter, 35 s on a quiet machine and well over a minute on a loaded one, and about a dozen
 * test files and every stack start need the same seeded chain.
 */
import { Block, type Blockchain } from "@acala-network/chopsticks";

type Hex = `0x${string}`;

export interface ChainBlock {
  number: number;
  hash: Hex;
  /** The SCALE-encoded header. */
  header: Hex;
  extrinsics: Hex[];
  /** Every key the block changed, with its new value; `null` for a removed key. */
  storageDiff: Record<Hex, Hex | null>;
}

/** Blocks 1 to the head, in order, of a chain that started from its genesis. */
export async function exportChainBlocks(chain: Blockchain): Promise<ChainBlock[]> {
  const blocks: ChainBlock[] = [];
  let code = await (await chain.getBlockAt(0))?.get(CODE_KEY);
  for (let number = 1; number <= chain.head.number; number++) {
    const block = await chain.getBlockAt(number);
    if (block === undefined) throw new Error(`block ${number} is no longer held by this node`);
    const [header, extrinsics, storageDiff] = await Promise.all([block.header, block.extrinsics, block.storageDiff()]);
    // Chopsticks keeps the runtime it loaded as a layer of each block: unchanged, it is no change,
    // and a block carrying `:code` would make the importing node decode its metadata again.
    const changed = storageDiff as Record<Hex, Hex | null>;
    if (changed[CODE_KEY] === code) delete changed[CODE_KEY];
    else if (changed[CODE_KEY] !== undefined) code = changed[CODE_KEY] ?? undefined;
    blocks.push({ number, hash: block.hash, header: header.toHex(), extrinsics, storageDiff: changed });
  }
  return blocks;
}

/** `:code`, the runtime's storage key. */
const CODE_KEY: Hex = "0x3a636f6465";

/**
 * Puts exported blocks on top of this chain's genesis, as its new head; whatever it had built
 * past its genesis (chopsticks builds block 1 as it starts) is left behind, unreachable by number.
 */
export async function importChainBlocks(chain: Blockchain, blocks: readonly ChainBlock[]): Promise<void> {
  const genesis = await chain.getBlockAt(0);
  if (genesis === undefined) throw new Error("this node holds no genesis block");
  let parent: Block = genesis;
  for (const entry of blocks) {
    if (entry.number !== parent.number + 1)
      throw new Error(`block ${entry.number} does not follow block ${parent.number}: the blocks are not a chain`);
    const registry = await parent.registry;
    const header = registry.createType("Header", entry.header);
    if (header.parentHash.toHex() !== parent.hash)
      throw new Error(`block ${entry.number}'s parent is not ${parent.hash}: the blocks belong to another genesis`);
    const block = new Block(chain, entry.number, entry.hash, parent, {
      header,
      extrinsics: entry.extrinsics,
      storage: parent.storage,
      storageDiff: entry.storageDiff,
    });
    await chain.setHead(block);
    parent = block;
  }
}
