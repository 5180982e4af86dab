import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { LegacyClient } from "@dedot/api";
import { WsProvider } from "@dedot/providers";
import { startSeededSubtensor } from "@platform/devnet";
import { type RunningChopsticks, tempDir } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fastStorage, type StorageEntryMeta, type TypeRegistry } from "./fastStorage.js";

// Keys built and values decoded by fastStorage.ts against dedot's own, on the real runtime
// (spec 218 under chopsticks, seeded with real stake): a key that differed would read another
// entry (or none) without any error, so every item the native source reads in bulk is checked.
const dir = tempDir("fast-storage");
let node: RunningChopsticks;
let client: LegacyClient;

beforeAll(async () => {
  ({ node } = await startSeededSubtensor({ logFile: join(dir.path, "chopsticks.log") }));
  client = await LegacyClient.new(new WsProvider(node.rpcUrl));
}, 300_000);

afterAll(async () => {
  await client?.disconnect();
  await node?.stop();
  dir.remove();
}, 60_000);

interface DedotItem {
  (...key: unknown[]): Promise<unknown>;
  rawKey(key: unknown): string;
  meta: StorageEntryMeta;
  pagedEntries(...args: unknown[]): Promise<[unknown, unknown][]>;
}

const itemOf = (pallet: string, name: string) =>
  (client.query as unknown as Record<string, Record<string, DedotItem>>)[pallet]![name]!;
const fastOf = (item: DedotItem) => fastStorage(item.meta, client.registry as unknown as TypeRegistry);
const account = () => `0x${randomBytes(32).toString("hex")}`;
const raw = async (key: string) =>
  (await client.rpc.state_getStorage(key as `0x${string}`)) as `0x${string}` | undefined;

/** Keys of existing entries, in the form the source passes them (AccountId32 as hex). */
async function existingKeys(item: DedotItem, count: number): Promise<unknown[]> {
  const entries = await item.pagedEntries({ pageSize: count });
  const plain = (part: unknown): unknown =>
    part !== null && typeof part === "object" && "raw" in part
      ? (part as { raw: string }).raw
      : typeof part === "string" && part.length === 48
        ? undefined
        : part;
  return entries
    .map(([key]) => (Array.isArray(key) ? key.map(plain) : plain(key)))
    .filter((key) => !(Array.isArray(key) ? key.includes(undefined) : key === undefined));
}

describe("fastStorage on the real runtime", () => {
  const items: Array<[string, string, (index: number) => unknown]> = [
    ["subtensorModule", "alpha", (index) => [account(), account(), index % 3]],
    ["subtensorModule", "totalHotkeyAlpha", (index) => [account(), index]],
    ["subtensorModule", "totalHotkeyShares", (index) => [account(), 65_535 - index]],
    ["subtensorModule", "owner", () => account()],
    ["subtensorModule", "keys", (index) => [index % 4, index]],
    ["subtensorModule", "subnetTAO", (index) => index],
    ["system", "account", () => account()],
  ];

  it.each(items)(
    "%s.%s: the same keys as dedot's, for made-up and for existing entries, and the same values",
    async (pallet, name, makeKey) => {
      const item = itemOf(pallet, name);
      const fast = fastOf(item);
      expect(fast, `${pallet}.${name} is built here`).toBeDefined();
      const keys = [...Array.from({ length: 20 }, (_, index) => makeKey(index)), ...(await existingKeys(item, 20))];
      expect(keys.length).toBeGreaterThan(20);
      for (const key of keys) {
        const built = fast!.encodeKey(key);
        expect(built, JSON.stringify(key)).toBe(item.rawKey(key));
        expect(fast!.decodeValue(await raw(built!))).toEqual(await item(key));
      }
    },
  );

  it("leaves a key in another form, and items of other key types, to dedot", () => {
    const alpha = fastOf(itemOf("subtensorModule", "alpha"))!;
    expect(alpha.encodeKey([account(), account()])).toBeUndefined();
    expect(alpha.encodeKey([account(), account(), 70_000])).toBeUndefined();
    expect(alpha.encodeKey([account(), "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY", 1])).toBeUndefined();
    expect(alpha.encodeKey([account(), account(), -1])).toBeUndefined();
    expect(fastOf(itemOf("subtensorModule", "totalIssuance"))).toBeUndefined();
  });
});
