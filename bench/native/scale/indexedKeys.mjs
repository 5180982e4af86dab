/**
 * A module hook for the bench's chopsticks process (scaleNode.ts, BENCH_SCALE_CHOPSTICKS=indexed)
 * that rewrites chopsticks' in-memory StorageLayer (chopsticks-core 1.5.1) for a mainnet-sized state
 * and a chain of 1,000+ blocks. Nothing else changes; every answer is the one the stock code gives.
 *
 * 1. The next-key lookup (`state_getKeysPaged`, and the runtime's `next_key` host call): stock
 *    chopsticks finds it with a linear `Array.find` over each layer's sorted keys, so walking a map
 *    of n keys in a state of N keys costs n x N string compares. Here: a binary search over the same
 *    sorted array (what a real node's trie does in O(log N)).
 * 2. The bottom layer (RemoteStorageLayer over the chain spec's GenesisProvider) answers next keys
 *    with `Object.keys(genesis).find` per key and a key cache that gains one range per call: walking
 *    a map that genesis also holds (System.Account, Alpha, Keys...) costs seconds per page. So the
 *    lookup skips that layer, and scaleNode.ts copies every genesis key still present at the head into
 *    an indexed layer first (same values).
 * 3. The layer chain: each block's storage is a layer over its parent's, so after a backlog of 1,000
 *    blocks a read at the head passes 1,000+ layers, and stock chopsticks does that as one `await`
 *    per layer (get, findNextKey) or one recursive call (deleted). Measured on the scale state at 200
 *    blocks deep: 1,000 values by `state_queryStorageAt` 508 ms (10 ms at the first block), 1,000
 *    `Alpha` keys 172 ms (19 ms). Here the walk down the chain is a plain loop over the layers'
 *    maps and sorted key arrays, awaiting only the bottom (remote) layer; and every 32 layers of a
 *    chain a summary (the union of those layers' values, later ones first, and their merged sorted
 *    keys) is kept, so a read at depth d passes at most 32 layers plus d / 32 summaries. A summary
 *    covers only finished layers (a layer with a child is never written again: chopsticks writes a
 *    block's layers while building it, and dev_setStorage writes the head's top layer) and no layer
 *    that deleted a prefix (those are walked one by one).
 * The hook fails loudly when a piece of code it rewrites is not found (another chopsticks version).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const TARGET = "/chopsticks-core/dist/esm/blockchain/storage-layer.js";

/** StorageLayer's methods from `deleted` to just before `set`: deleted, get, getMany. */
const READS_START = "    deleted(key) {\n        if (this.#store.has(key)) {";
const READS_END = "    set(key, value) {";
/** StorageLayer's findNextKey, up to its getKeysPaged. */
const NEXT_START = "    async findNextKey(prefix, startKey, knownBest) {";
const NEXT_END = "    async getKeysPaged(prefix, pageSize, startKey) {";
/** Where a layer gets its parent, and where its contents change. */
const CONSTRUCTOR = "    constructor(parent){\n        this.#parent = parent;\n    }";
const SET_START = "    set(key, value) {\n        switch(value){";
const CLASS_START = "export class StorageLayer {\n    #store = new Map();";

const SUMMARY_EVERY = 32;

const READS = `
    /**
     * The summary of the ${SUMMARY_EVERY} layers from this one down, when this layer sits at a summary depth
     * (depth % ${SUMMARY_EVERY} == ${SUMMARY_EVERY - 1}), has a child (then neither it nor any layer below is written
     * again) and none of them deleted a prefix; built on first use. Null otherwise.
     */
    #summaryFor() {
        if (this.#summary !== undefined) return this.#summary;
        if (this.#depth % ${SUMMARY_EVERY} !== ${SUMMARY_EVERY - 1} || !this.#frozen) return null;
        const layers = [];
        let layer = this;
        while (layers.length < ${SUMMARY_EVERY} && layer instanceof StorageLayer) {
            if (layer.#deletedPrefix.length > 0) return (this.#summary = null);
            layers.push(layer);
            layer = layer.#parent;
        }
        const store = new Map();
        for (const each of layers) for (const [key, value] of each.#store) if (!store.has(key)) store.set(key, value);
        const keys = [];
        for (const [key, value] of store) if (value !== "Deleted" && value !== undefined) keys.push(key);
        keys.sort();
        this.#summary = { store, keys, below: layer };
        return this.#summary;
    }
    /**
     * Walks down from this layer, a layer (its own map, sorted keys and deleted prefixes) or a summary
     * of ${SUMMARY_EVERY} at a time, calling visit(store, keys, deletedPrefix) until it returns true (then
     * undefined is returned). Otherwise returns the first layer below that is not a StorageLayer (the
     * remote one), or null when there is none.
     */
    #walk(visit) {
        let layer = this;
        while (layer instanceof StorageLayer) {
            const summary = layer.#summaryFor();
            if (summary) {
                if (visit(summary.store, summary.keys, NO_PREFIXES)) return undefined;
                layer = summary.below;
            } else {
                if (visit(layer.#store, layer.#keys, layer.#deletedPrefix)) return undefined;
                layer = layer.#parent;
            }
        }
        return layer ?? null;
    }
    deleted(key) {
        let answer = false;
        const bottom = this.#walk((store, _keys, deletedPrefix) => {
            if (store.has(key)) {
                answer = store.get(key) === "Deleted";
                return true;
            }
            if (deletedPrefix.length > 0 && deletedPrefix.some((dp)=>key.startsWith(dp))) {
                answer = true;
                return true;
            }
            return false;
        });
        return bottom ? bottom.deleted(key) : answer;
    }
    async get(key, cache) {
        if (this.#store.has(key)) {
            return this.#store.get(key);
        }
        if (this.#deletedPrefix.some((dp)=>key.startsWith(dp))) {
            return "Deleted";
        }
        if (!this.#parent) return undefined;
        let found;
        const bottom = this.#parent instanceof StorageLayer ? this.#parent.#walk((store, _keys, deletedPrefix) => {
            if (store.has(key)) {
                found = store.get(key);
                return true;
            }
            if (deletedPrefix.length > 0 && deletedPrefix.some((dp)=>key.startsWith(dp))) {
                found = "Deleted";
                return true;
            }
            return false;
        }) : this.#parent;
        const val = bottom ? await bottom.get(key, false) : bottom === null ? undefined : found;
        if (cache) {
            this.#cacheParentValue(key, val);
        }
        return val;
    }
    async getMany(keys, cache) {
        return Promise.all(keys.map((key)=>this.get(key, cache)));
    }
`;

const NEXT = `
    async findNextKey(prefix, startKey, knownBest) {
        let best = knownBest;
        this.#walk((_store, keys, deletedPrefix) => {
            const at = startKey < prefix ? _.sortedIndex(keys, prefix) : _.sortedLastIndex(keys, startKey);
            const next = keys[at];
            if (next !== undefined && next.startsWith(prefix) && next > startKey && (best === undefined || next < best)) best = next;
            // A layer that deleted this very prefix hides every layer below it (as stock chopsticks).
            return deletedPrefix.length > 0 && deletedPrefix.some((dp)=>dp === prefix);
        });
        // The bottom (remote, genesis) layer is skipped: scaleNode.ts copied its keys into an indexed layer.
        return best;
    }
`;

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (!url.endsWith(TARGET)) return loaded;
  let source =
    loaded.source === undefined || loaded.source === null
      ? readFileSync(fileURLToPath(url), "utf8")
      : String(loaded.source);
  const classAt = source.indexOf(CLASS_START);
  const between = (start, end) => {
    const from = source.indexOf(start, classAt);
    const to = source.indexOf(end, from);
    if (classAt < 0 || from < 0 || to < 0)
      throw new Error(`indexedKeys: ${url} is not the StorageLayer this patch knows (another chopsticks version?)`);
    return [from, to];
  };
  const replace = (start, end, text) => {
    const [from, to] = between(start, end);
    source = source.slice(0, from) + text + source.slice(to);
  };
  replace(READS_START, READS_END, READS);
  replace(NEXT_START, NEXT_END, NEXT);
  // A layer is frozen (never written again) once a layer is stacked on it.
  const [constructorAt] = between(CONSTRUCTOR, CONSTRUCTOR);
  source =
    source.slice(0, constructorAt) +
    "    #summary = undefined;\n    #frozen = false;\n    #depth = 0;\n    freeze() {\n        this.#frozen = true;\n    }\n" +
    "    constructor(parent){\n        this.#parent = parent;\n        if (parent instanceof StorageLayer) {\n            parent.freeze();\n            this.#depth = parent.#depth + 1;\n        }\n    }" +
    source.slice(constructorAt + CONSTRUCTOR.length);
  const [setAt] = between(SET_START, SET_START);
  source =
    source.slice(0, setAt) +
    "    set(key, value) {\n        if (this.#frozen) throw new Error('indexedKeys: a layer with a child was written');\n        switch(value){" +
    source.slice(setAt + SET_START.length);
  source = source.replace(CLASS_START, `const NO_PREFIXES = [];\n${CLASS_START}`);
  return { ...loaded, format: "module", source, shortCircuit: true };
}
