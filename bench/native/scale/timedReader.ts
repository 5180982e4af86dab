import type { NativeChainReader } from "../../../services/chain-ingestor/src/native/node/chainReader.js";
import type { RuntimeAt, StorageItem } from "../../../services/chain-ingestor/src/native/node/runtimeAt.js";

/** Time spent and calls made per read of the native source, by name (`positionsAt`, `storage subtensorModule.alpha entries`…). */
export class ReadTimes {
  readonly byRead = new Map<string, { calls: number; ms: number; items: number }>();

  async time<T>(name: string, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await run();
    } finally {
      const entry = this.byRead.get(name) ?? { calls: 0, ms: 0, items: 0 };
      entry.calls += 1;
      entry.ms += performance.now() - started;
      this.byRead.set(name, entry);
    }
  }

  count(name: string, items: number): void {
    const entry = this.byRead.get(name);
    if (entry !== undefined) entry.items += items;
  }

  /** The reads by time spent (wall time; reads overlap, so the sum exceeds the elapsed time). */
  table(): { read: string; calls: number; ms: number; items: number }[] {
    return [...this.byRead].map(([read, entry]) => ({ read, ...entry })).sort((a, b) => b.ms - a.ms);
  }

  reset(): void {
    this.byRead.clear();
  }
}

/**
 * The reader with every method timed, and every storage item of `runtimeAt` (call, multi,
 * entries) too. The source under test is unchanged: it gets this reader instead of the bare one.
 */
export function timedReader(reader: NativeChainReader, times: ReadTimes): NativeChainReader {
  const timedItem = (name: string, item: StorageItem): StorageItem => {
    const call = ((...key: unknown[]) => times.time(name, () => item(...key))) as StorageItem;
    call.multi = async (keys) => {
      const values = await times.time(`${name} multi`, () => item.multi(keys));
      times.count(`${name} multi`, keys.length);
      return values;
    };
    call.entries = async (...partialKey) => {
      const label = `${name} entries${partialKey.length === 0 ? " (whole map)" : ""}`;
      const rows = await times.time(label, () => item.entries(...partialKey));
      times.count(label, rows.length);
      return rows;
    };
    return call;
  };
  const timedRuntime = (runtime: RuntimeAt): RuntimeAt => ({
    specVersion: runtime.specVersion,
    hasRuntimeApi: (name) => runtime.hasRuntimeApi(name),
    storage(pallet, item) {
      const raw = runtime.storage(pallet, item);
      return raw === undefined ? undefined : timedItem(`${pallet}.${item}`, raw);
    },
  });
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(reader)) {
    if (typeof value !== "function") {
      wrapped[name] = value;
      continue;
    }
    const method = value as (...args: unknown[]) => Promise<unknown>;
    if (name === "close" || name === "onNewHead") wrapped[name] = method;
    else if (name === "runtimeAt")
      wrapped[name] = async (...args: unknown[]) =>
        timedRuntime((await times.time(name, () => method(...args))) as RuntimeAt);
    else wrapped[name] = (...args: unknown[]) => times.time(name, () => method(...args));
  }
  return wrapped as unknown as NativeChainReader;
}
