/**
 * One block's runtime as the snapshot readers see it: its storage items by pallet and name, decoded
 * with that block's own metadata, and which runtime APIs it offers. An item the runtime at the block
 * does not have is `undefined`, so a reader records it as absent instead of failing or guessing.
 *
 * A narrow, client-free shape so the readers can be tested against plain fakes; the node reader
 * (chainReader.ts) adapts dedot's `client.at(hash)` to it.
 */
export interface RuntimeAt {
  /** The spec version of the runtime that built the block. */
  specVersion: number;
  /** A storage item (camelCase names, as `storage("subtensorModule", "subnetTAO")`), or undefined. */
  storage(pallet: string, item: string): StorageItem | undefined;
  hasRuntimeApi(name: string): boolean;
}

/**
 * A storage item. Values come as the client decodes them: integers as bigint or number, AccountId32
 * as `{ raw }` or hex, structs as objects with camelCase fields, `Bytes` as hex strings, vectors as
 * arrays, tuples as arrays; `undefined` for an absent `Option` item.
 */
export interface StorageItem {
  /** A plain item's value (no key) or a map's value at a full key (one argument; a tuple for a multi-key map). */
  (...key: unknown[]): Promise<unknown>;
  /** A map's values at many full keys, in key order, in one read. */
  multi(keys: readonly unknown[]): Promise<unknown[]>;
  /** A map's entries under a partial key (none: the whole map), as [full key, value]. */
  entries(...partialKey: unknown[]): Promise<[unknown, unknown][]>;
}
