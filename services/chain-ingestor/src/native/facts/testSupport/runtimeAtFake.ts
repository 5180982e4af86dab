import type { RuntimeAt, StorageItem } from "../../node/runtimeAt.js";

/**
 * A plain-data RuntimeAt for the snapshot readers' tests. Each item is named `pallet.item` and is
 * either a function of the full key (a plain item is called with none; a ValueQuery map answers
 * its default for any key) or the list of its stored entries `[full key, value]` (a key not in the
 * list answers undefined, as an OptionQuery does). `entries` filters a list by partial key; every
 * read is logged, so a test can check how a reader batches.
 */
export type FakeItem = ((key?: unknown) => unknown) | readonly (readonly [unknown, unknown])[];

export interface FakeRead {
  item: string;
  kind: "get" | "multi" | "entries";
  /** Keys of a multi read, the partial key of `entries`, the key of a get. */
  keys: readonly unknown[];
}

export interface FakeRuntimeAt extends RuntimeAt {
  reads: FakeRead[];
}

export function fakeRuntimeAt(
  items: Readonly<Record<string, FakeItem>>,
  options: { specVersion?: number; runtimeApis?: readonly string[] } = {},
): FakeRuntimeAt {
  const reads: FakeRead[] = [];
  return {
    specVersion: options.specVersion ?? 218,
    reads,
    hasRuntimeApi: (name) => options.runtimeApis?.includes(name) ?? false,
    storage(pallet, item) {
      const name = `${pallet}.${item}`;
      const fake = items[name];
      return fake === undefined ? undefined : fakeStorageItem(name, fake, reads);
    },
  };
}

function fakeStorageItem(name: string, fake: FakeItem, reads: FakeRead[]): StorageItem {
  const valueAt = (key: unknown): unknown =>
    typeof fake === "function" ? fake(key) : fake.find(([stored]) => sameKey(stored, key))?.[1];
  const item = (async (...key: unknown[]) => {
    reads.push({ item: name, kind: "get", keys: key });
    return valueAt(key[0]);
  }) as StorageItem;
  item.multi = async (keys) => {
    reads.push({ item: name, kind: "multi", keys });
    return keys.map(valueAt);
  };
  item.entries = async (...partialKey) => {
    reads.push({ item: name, kind: "entries", keys: partialKey });
    if (typeof fake === "function") throw new Error(`${name}: a function item has no entries to list`);
    return fake
      .filter(([key]) => startsWith(key, partialKey))
      .map(([key, value]) => [key, value] as [unknown, unknown]);
  };
  return item;
}

const keyText = (key: unknown): string =>
  JSON.stringify(key, (_name, value: unknown) => (typeof value === "bigint" ? `${value}n` : value));

const sameKey = (a: unknown, b: unknown): boolean => keyText(a) === keyText(b);

/** Whether a stored full key (a tuple for a multi-key map) begins with the partial key's parts. */
function startsWith(key: unknown, partialKey: readonly unknown[]): boolean {
  const parts = Array.isArray(key) ? key : [key];
  return partialKey.every((part, index) => sameKey(parts[index], part));
}
