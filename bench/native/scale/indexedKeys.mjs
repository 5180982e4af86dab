/**
 * A module hook for the bench's chopsticks process (scaleNode.ts, BENCH_SCALE_CHOPSTICKS=indexed):
 * chopsticks' in-memory StorageLayer finds the next key (`state_getKeysPaged`, and the runtime's
 * `next_key` host call) with a linear `Array.find` over each layer's sorted keys, so walking a map
 * of n keys in a state of N keys costs n x N string compares. This rewrites that one line to a
 * binary search over the same sorted array (what a real node's trie does in O(log N)).
 *
 * The bottom layer (RemoteStorageLayer over the chain spec's GenesisProvider) answers next keys with
 * `Object.keys(genesis).find` per key and a key cache that gains one range per call: walking a map
 * that genesis also holds (System.Account, Alpha, Keys...) costs seconds per page. So the lookup
 * skips that layer, and scaleNode.ts copies every genesis key still present at the head into an
 * indexed layer first (same values; nothing else changes). The hook fails loudly when a line is
 * not found (another chopsticks version).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const TARGET = "/chopsticks-core/dist/esm/blockchain/storage-layer.js";
const LINEAR = "const maybeBest = this.#keys.find((key)=>key.startsWith(prefix) && key > startKey);";
const INDEXED =
  "const __at = startKey < prefix ? _.sortedIndex(this.#keys, prefix) : _.sortedLastIndex(this.#keys, startKey);" +
  " const __next = this.#keys[__at];" +
  " const maybeBest = __next !== undefined && __next.startsWith(prefix) && __next > startKey ? __next : undefined;";

const PARENT = "if (this.#parent && !this.#deletedPrefix.some((dp)=>dp === prefix)) {";
const INDEXED_PARENT =
  "if (this.#parent && this.#parent instanceof StorageLayer && !this.#deletedPrefix.some((dp)=>dp === prefix)) {";

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (!url.endsWith(TARGET)) return loaded;
  const source =
    loaded.source === undefined || loaded.source === null
      ? readFileSync(fileURLToPath(url), "utf8")
      : String(loaded.source);
  if (!source.includes(LINEAR) || source.split(PARENT).length !== 2)
    throw new Error(`indexedKeys: ${url} is not the findNextKey this patch knows (another chopsticks version?)`);
  return {
    ...loaded,
    format: "module",
    source: source.replace(LINEAR, INDEXED).replace(PARENT, INDEXED_PARENT),
    shortCircuit: true,
  };
}
