import type { LegacyClient } from "@dedot/api";
import { blake2AsHex, stringCamelCase } from "@dedot/utils";
import type { SubstrateNetwork } from "@platform/chain";
import { ROOT_NETUID } from "@platform/subtensor";
import type { Hex } from "viem";
import { ForkDuringReadError } from "../../follower/blockFollower.js";
import type { BlockHeader } from "../../follower/blocks.js";
import { type KeptConnection, keepConnected } from "./connection.js";
import { accountField } from "./eventFields.js";
import { type FastStorage, fastStorage, type StorageEntryMeta, type TypeRegistry } from "./fastStorage.js";
import type { NativePool } from "./nativePool.js";
import type { RuntimeAt, StorageItem as RuntimeStorageItem } from "./runtimeAt.js";
import type { NativeBlockFacts, RuntimeEvent } from "./runtimeEvent.js";
import {
  type ColdkeyPosition,
  decodeStakeInfoForColdkeys,
  fixedBits,
  type ShareArithmetic,
  shareArithmeticOf,
  shareValue,
} from "./stakeInfo.js";

/** An account's balances as `System.Account` holds them at a block. */
export interface NativeAccountBalance {
  freeRao: bigint;
  reservedRao: bigint;
  frozenRao: bigint;
}

/**
 * What the native source asks the node, in the network's own terms. Every read names its block by
 * hash and is decoded with that block's runtime metadata (dedot's `at(hash)` loads the metadata of
 * the runtime that built the block, keyed by its spec version), so a runtime upgrade mid-stream
 * changes nothing here.
 */
export interface NativeChainReader {
  /** The best block's number and the finalized head's. */
  heads(): Promise<{ best: bigint; finalized: bigint }>;
  /** Headers at the given heights (with the block's `Timestamp.Now`); heights the node lacks are left out. */
  headersAt(numbers: readonly bigint[]): Promise<BlockHeader[]>;
  /** A known block's header by hash, or undefined when the node no longer has it. */
  headerOf(hash: Hex): Promise<BlockHeader | undefined>;
  /** The block's events and extrinsic hashes. */
  blockFacts(header: BlockHeader): Promise<NativeBlockFacts>;
  balancesAt(blockHash: Hex, accounts: readonly Hex[]): Promise<Map<string, NativeAccountBalance>>;
  /**
   * Every alpha position of the coldkeys on the netuids, as StakeInfoRuntimeApi answers them;
   * undefined when the runtime has no StakeInfoRuntimeApi.
   */
  positionsAt(
    blockHash: Hex,
    coldkeys: readonly Hex[],
    netuids: readonly number[],
  ): Promise<Map<string, ColdkeyPosition[]> | undefined>;
  /** The netuids of `NetworksAdded` at the block (a key scan), root included; [] when the runtime has no such map. */
  netuidsAt(blockHash: Hex): Promise<number[]>;
  /** The subnets' pools at the block; undefined when the runtime keeps no pools (before dynamic TAO: no `SubnetTAO`). */
  poolsAt(blockHash: Hex, netuids: readonly number[]): Promise<NativePool[] | undefined>;
  /** The network totals' storage at the block (each item undefined where the runtime does not keep it). */
  networkStorageAt(blockHash: Hex, netuids: readonly number[]): Promise<NativeNetworkStorage>;
  /** How many accounts `System.Account` holds at the block: every key of the map, counted page by page. */
  accountsCountAt(blockHash: Hex): Promise<bigint>;
  /**
   * The block's runtime for the snapshot readers (runtimeAt.ts): its storage by pallet and item,
   * decoded with the block's own metadata. Reads through it are bounded like every other read.
   */
  runtimeAt(blockHash: Hex): Promise<RuntimeAt>;
  /** Calls `onHead` at every new best block (a hint to read now; the follower polls anyway). */
  onNewHead(onHead: () => void): Promise<void>;
  close(): Promise<void>;
}

/** twox128("Timestamp") ++ twox128("Now"): the block's clock, a u64 of milliseconds. */
const TIMESTAMP_NOW_KEY = "0xf0c365c3cf59d671eb72da0e7a4113c49f1f0515f462cdcf84e0f1d6045dfcbb";

interface RawHeader {
  parentHash: Hex;
  number: number | string;
}

/** A storage map of dedot's untyped query proxy, with partial keys. */
interface MapStorage {
  entries(...partialKey: unknown[]): Promise<unknown[]>;
  multi(keys: readonly unknown[]): Promise<unknown[]>;
}

/** SubtensorModule's storage items by name at a block, untyped (the runtime's own metadata decodes them); undefined without the pallet. */
const subtensorStorage = (at: { query: unknown }): Record<string, MapStorage | undefined> | undefined =>
  (at.query as { subtensorModule?: Record<string, MapStorage | undefined> }).subtensorModule;

/** twox128("System") ++ twox128("Account"): the prefix of every account's key. */
const SYSTEM_ACCOUNT_PREFIX = "0x26aa394eea5630e07c48ae0c9558cef7b99d880ec681799c0cf30e8886371da9";
/** The most keys a node answers per `state_getKeysPaged`. */
const KEYS_PAGE = 1_000;

/** The network totals' storage at a block; undefined where the runtime does not keep the item. */
export interface NativeNetworkStorage {
  /** `SubtensorModule.TotalIssuance`. */
  totalIssuance: bigint | undefined;
  /** `Balances.TotalIssuance`. */
  balancesIssuance: bigint | undefined;
  totalStake: bigint | undefined;
  blockEmission: bigint | undefined;
  subnetLimit: bigint | undefined;
  /** `NetworkMinLockCost`, `NetworkLastLockCost`, `NetworkLastRegistered`, `NetworkLockReductionInterval`. */
  minLock: bigint | undefined;
  lastLock: bigint | undefined;
  lastRegistered: bigint | undefined;
  lockInterval: bigint | undefined;
  /** Sum of `SubnetLocked` over the netuids. */
  subnetLocked: bigint | undefined;
  /** `TaoWeight` as a raw u64 (root's entry where the runtime keeps one per subnet, as spec 218 does). */
  taoWeight: bigint | undefined;
}

/** A storage item of dedot's untyped query proxy: plain (called without a key) or a map. */
interface StorageItem {
  (...key: unknown[]): Promise<unknown>;
  multi(keys: readonly unknown[]): Promise<unknown[]>;
}

const toBig = (value: unknown): bigint | undefined =>
  typeof value === "bigint" ? value : typeof value === "number" ? BigInt(value) : undefined;

/** `TaoWeight`: a plain u64 in newer runtimes, a map by netuid in spec 218 (root's entry is the network's). */
async function taoWeightAt(item: StorageItem | undefined): Promise<bigint | undefined> {
  if (item === undefined) return undefined;
  try {
    return toBig(await item());
  } catch {
    return toBig(await item(ROOT_NETUID));
  }
}

/** An AccountId32 as dedot decodes it (`{ raw }`), as its public key. */
function publicKeyHex(account: unknown): Hex {
  const key = accountField(account)?.publicKey;
  if (key === undefined) throw new Error(`not an AccountId32: ${String(account)}`);
  return key as Hex;
}

type RawRpc = Record<string, (...params: unknown[]) => Promise<unknown>>;

/**
 * Connects to the network's Substrate RPC (WebSocket) and resolves once it answers. Every read
 * answers within `rpc.timeoutMs` or fails (the follower reads again), and a connection that broke
 * is replaced by a new one at a later read (`keepConnected`).
 */
export async function connectNativeChain(network: SubstrateNetwork): Promise<NativeChainReader> {
  // The connection in use; `keepConnected` swaps it when it replaces the connection (it sets it
  // once before it resolves).
  const node = {} as LiveNode;
  const connection = await keepConnected(network, (next) => {
    node.client = next;
    node.rpc = next.rpc as unknown as RawRpc;
  });

  return {
    heads: () => connection.read("heads", () => readHeads(node)),
    headersAt: (numbers) => connection.read("headers", () => readHeadersAt(node, numbers)),
    headerOf: (hash) => connection.read("header", () => readHeaderOf(node, hash)),
    blockFacts: (header) => connection.read(`block ${header.number}`, () => readBlockFacts(node, header)),
    // Each page of the read is bounded on its own (runtimeAtOf).
    balancesAt: (blockHash, accounts) => readBalancesAt(node, connection, blockHash, accounts),
    positionsAt: (blockHash, coldkeys, netuids) =>
      connection.read("stake positions", () => readPositionsAt(node, blockHash, coldkeys, netuids)),
    netuidsAt: (blockHash) => connection.read("netuids", () => readNetuidsAt(node, blockHash)),
    poolsAt: (blockHash, netuids) => connection.read("pools", () => readPoolsAt(node, blockHash, netuids)),
    networkStorageAt: (blockHash, netuids) =>
      connection.read("network totals", () => readNetworkStorageAt(node, blockHash, netuids)),
    accountsCountAt: (blockHash) => countAccountsAt(node, connection, blockHash),
    runtimeAt: (blockHash) => readRuntimeAt(node, connection, blockHash),
    onNewHead: (onHead) => connection.onNewHead(onHead),
    close: () => connection.close(),
  };
}

/** The client of the connection in use, read at every call (`keepConnected` replaces it). */
interface LiveNode {
  client: LegacyClient;
  /** Untyped access to the raw JSON-RPC methods (dedot's typed rpc proxies any method name). */
  rpc: RawRpc;
}

async function readHeads(node: LiveNode): Promise<{ best: bigint; finalized: bigint }> {
  const [best, finalizedHash] = await Promise.all([
    node.rpc["chain_getHeader"]!() as Promise<RawHeader>,
    node.rpc["chain_getFinalizedHead"]!() as Promise<Hex>,
  ]);
  const finalized = (await node.rpc["chain_getHeader"]!(finalizedHash)) as RawHeader;
  return { best: BigInt(best.number), finalized: BigInt(finalized.number) };
}

async function readHeadersAt(node: LiveNode, numbers: readonly bigint[]): Promise<BlockHeader[]> {
  const headers = await Promise.all(
    numbers.map(async (number) => {
      const hash = (await node.rpc["chain_getBlockHash"]!(Number(number))) as Hex | undefined;
      if (hash === undefined) return undefined;
      return headerAt(node, hash, (await node.rpc["chain_getHeader"]!(hash)) as RawHeader | undefined);
    }),
  );
  return headers.filter((header): header is BlockHeader => header !== undefined);
}

async function readHeaderOf(node: LiveNode, hash: Hex): Promise<BlockHeader | undefined> {
  return headerAt(node, hash, (await node.rpc["chain_getHeader"]!(hash)) as RawHeader | undefined);
}

// dedot hands a JSON-RPC `null` result (no such block, header or storage value) back as `undefined`.
async function headerAt(node: LiveNode, hash: Hex, raw: RawHeader | undefined): Promise<BlockHeader | undefined> {
  if (raw === undefined) return undefined;
  const timestamp = (await node.rpc["state_getStorage"]!(TIMESTAMP_NOW_KEY, hash)) as Hex | undefined;
  return {
    number: BigInt(raw.number),
    hash: hash.toLowerCase() as Hex,
    parentHash: raw.parentHash.toLowerCase() as Hex,
    timestamp: timestamp === undefined ? 0n : readU64Le(timestamp) / 1_000n,
    timestampMs: timestamp === undefined ? 0n : readU64Le(timestamp),
  };
}

async function readBlockFacts(node: LiveNode, header: BlockHeader): Promise<NativeBlockFacts> {
  const [at, block] = await Promise.all([
    node.client.at(header.hash),
    node.rpc["chain_getBlock"]!(header.hash) as Promise<{ block: { extrinsics: Hex[] } } | undefined>,
  ]);
  if (block === undefined)
    throw new ForkDuringReadError(`block ${header.number} (${header.hash}) vanished while it was read`);
  const records = (await at.query.system.events()) as unknown as DedotEventRecord[];
  return {
    number: header.number,
    extrinsicHashes: block.block.extrinsics.map((extrinsic) => blake2AsHex(extrinsic) as Hex),
    events: records.map(toRuntimeEvent),
  };
}

async function readBalancesAt(
  node: LiveNode,
  connection: KeptConnection,
  blockHash: Hex,
  accounts: readonly Hex[],
): Promise<Map<string, NativeAccountBalance>> {
  const balances = new Map<string, NativeAccountBalance>();
  if (accounts.length === 0) return balances;
  // Through RuntimeAt: tens of thousands of accounts at an epoch on a mainnet-sized state, in
  // bounded pages, keys built in fastStorage.ts.
  const account = (await readRuntimeAt(node, connection, blockHash)).storage("system", "account");
  if (account === undefined) throw new Error("the runtime has no System.Account");
  const values = (await account.multi([...accounts])) as { data: Record<string, bigint> }[];
  accounts.forEach((account, index) => {
    const data = values[index]!.data;
    balances.set(account, {
      freeRao: data["free"] ?? 0n,
      reservedRao: data["reserved"] ?? 0n,
      // Older Balances pallets kept two frozen amounts; the account is frozen by the larger.
      frozenRao: data["frozen"] ?? bigMax(data["miscFrozen"] ?? 0n, data["feeFrozen"] ?? 0n),
    });
  });
  return balances;
}

function readRuntimeAt(node: LiveNode, connection: KeptConnection, blockHash: Hex): Promise<RuntimeAt> {
  return connection.read("runtime", async () =>
    runtimeAtOf(await node.client.at(blockHash), connection, {
      blockHash,
      queryStorageAt: (keys, at) => node.rpc["state_queryStorageAt"]!(keys, at) as Promise<StorageChangeSet[]>,
    }),
  );
}

async function readPositionsAt(
  node: LiveNode,
  blockHash: Hex,
  coldkeys: readonly Hex[],
  netuids: readonly number[],
): Promise<Map<string, ColdkeyPosition[]> | undefined> {
  if (coldkeys.length === 0) return new Map();
  const at = await node.client.at(blockHash);
  const hasApi = at.metadata.latest.apis.some((api) => api.name === "StakeInfoRuntimeApi");
  if (!hasApi) return undefined;
  // Only coldkeys that stake through some hotkey (`StakingHotkeys`) can hold a position.
  const module = subtensorStorage(at);
  const stakingHotkeys = module?.["stakingHotkeys"];
  let stakers = [...coldkeys];
  const hotkeysOf = new Map<Hex, Hex[]>();
  if (stakingHotkeys !== undefined) {
    const lists = (await stakingHotkeys.multi([...coldkeys])) as unknown[][];
    coldkeys.forEach((coldkey, index) => hotkeysOf.set(coldkey, (lists[index] ?? []).map(publicKeyHex)));
    stakers = coldkeys.filter((coldkey) => (hotkeysOf.get(coldkey)?.length ?? 0) > 0);
  }
  const positions = new Map<string, ColdkeyPosition[]>(coldkeys.map((coldkey) => [coldkey, []]));
  if (stakers.length === 0) return positions;
  const fromStorage =
    stakingHotkeys === undefined ? undefined : await sharePoolPositions(module, stakers, hotkeysOf, netuids);
  if (fromStorage !== undefined) {
    for (const [coldkey, list] of fromStorage) positions.set(coldkey, list);
    return positions;
  }
  // A runtime whose share pool this reader does not know: ask the runtime (a wasm execution).
  const call = at.call as unknown as {
    stakeInfoRuntimeApi: { getStakeInfoForColdkeys(coldkeys: Hex[]): Promise<unknown> };
  };
  for (const [coldkey, list] of decodeStakeInfoForColdkeys(
    await call.stakeInfoRuntimeApi.getStakeInfoForColdkeys(stakers),
  ))
    positions.set(coldkey, list);
  return positions;
}

async function readNetuidsAt(node: LiveNode, blockHash: Hex): Promise<number[]> {
  const at = await node.client.at(blockHash);
  const added = subtensorStorage(at)?.["networksAdded"];
  if (added === undefined) return [];
  // At most `SubnetLimit` entries (a few hundred): one page of keys, values in the same read.
  return ((await added.entries()) as [number, boolean][])
    .filter(([, isAdded]) => isAdded)
    .map(([netuid]) => netuid)
    .sort((a, b) => a - b);
}

async function readPoolsAt(
  node: LiveNode,
  blockHash: Hex,
  netuids: readonly number[],
): Promise<NativePool[] | undefined> {
  const at = await node.client.at(blockHash);
  const module = subtensorStorage(at);
  const [tao, alphaIn, alphaOut, mechanism] = ["subnetTAO", "subnetAlphaIn", "subnetAlphaOut", "subnetMechanism"].map(
    (name) => module?.[name],
  );
  if (tao === undefined || alphaIn === undefined || alphaOut === undefined || mechanism === undefined) return undefined;
  const keys = [...netuids];
  const [taos, alphaIns, alphaOuts, mechanisms] = await Promise.all([
    tao.multi(keys),
    alphaIn.multi(keys),
    alphaOut.multi(keys),
    mechanism.multi(keys),
  ]);
  return keys.map((netuid, index) => ({
    netuid,
    mechanism: Number(mechanisms[index] ?? 0),
    taoInRao: BigInt((taos[index] as bigint | undefined) ?? 0n),
    alphaInNalpha: BigInt((alphaIns[index] as bigint | undefined) ?? 0n),
    alphaOutNalpha: BigInt((alphaOuts[index] as bigint | undefined) ?? 0n),
  }));
}

async function readNetworkStorageAt(
  node: LiveNode,
  blockHash: Hex,
  netuids: readonly number[],
): Promise<NativeNetworkStorage> {
  const at = await node.client.at(blockHash);
  const query = at.query as unknown as Record<string, Record<string, StorageItem | undefined> | undefined>;
  const subtensor = query["subtensorModule"];
  const plain = async (item: StorageItem | undefined): Promise<bigint | undefined> =>
    item === undefined ? undefined : toBig(await item());
  const [
    totalIssuance,
    balancesIssuance,
    totalStake,
    blockEmission,
    subnetLimit,
    minLock,
    lastLock,
    lastRegistered,
    lockInterval,
    locked,
    taoWeight,
  ] = await Promise.all([
    plain(subtensor?.["totalIssuance"]),
    plain(query["balances"]?.["totalIssuance"]),
    plain(subtensor?.["totalStake"]),
    plain(subtensor?.["blockEmission"]),
    plain(subtensor?.["subnetLimit"]),
    plain(subtensor?.["networkMinLockCost"]),
    plain(subtensor?.["networkLastLockCost"]),
    plain(subtensor?.["networkLastRegistered"]),
    plain(subtensor?.["networkLockReductionInterval"]),
    subtensor?.["subnetLocked"]?.multi([...netuids]),
    taoWeightAt(subtensor?.["taoWeight"]),
  ]);
  return {
    totalIssuance,
    balancesIssuance,
    totalStake,
    blockEmission,
    subnetLimit,
    minLock,
    lastLock,
    lastRegistered,
    lockInterval,
    subnetLocked:
      locked === undefined ? undefined : locked.reduce<bigint>((sum, value) => sum + (toBig(value) ?? 0n), 0n),
    taoWeight,
  };
}

async function countAccountsAt(node: LiveNode, connection: KeptConnection, blockHash: Hex): Promise<bigint> {
  let count = 0n;
  let startKey: Hex | undefined;
  for (;;) {
    // Each page is its own bounded read: a large network's count is many of them.
    const page = await connection.read(
      "accounts page",
      async () =>
        (await node.rpc["state_getKeysPaged"]!(SYSTEM_ACCOUNT_PREFIX, KEYS_PAGE, startKey ?? null, blockHash)) as Hex[],
    );
    count += BigInt(page.length);
    if (page.length < KEYS_PAGE) return count;
    startKey = page.at(-1)!;
  }
}

/** Keys per `state_queryStorageAt`, and entries per `state_getKeysPaged` page (the most a node answers). */
const MULTI_CHUNK = 1_000;
const ENTRIES_PAGE = 1_000;
/** Pages of one large read in flight at once. */
const READS_IN_FLIGHT = 4;

/** dedot's storage function with the paging it has but does not type. */
interface DedotStorage {
  (...key: unknown[]): Promise<unknown>;
  multi(keys: unknown[]): Promise<unknown[]>;
  pagedEntries(...args: unknown[]): Promise<[unknown, unknown][]>;
  rawKey(key: unknown): string;
  meta?: StorageEntryMeta;
}

async function inParallel<T, R>(items: readonly T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** `state_queryStorageAt`'s answer: one change set with each key's value (null: absent). */
interface StorageChangeSet {
  changes: [Hex, Hex | null][];
}

/** Per runtime (its registry), the items whose keys and values are built here (fastStorage.ts). */
const fastItems = new WeakMap<object, Map<string, FastStorage | undefined>>();

function fastItemOf(
  registry: TypeRegistry,
  what: string,
  meta: () => StorageEntryMeta | undefined,
): FastStorage | undefined {
  let items = fastItems.get(registry);
  if (items === undefined) {
    items = new Map();
    fastItems.set(registry, items);
  }
  if (!items.has(what)) {
    const known = meta();
    items.set(what, known === undefined ? undefined : fastStorage(known, registry));
  }
  return items.get(what);
}

/** The storage items of a runtime's metadata. */
interface PalletsMeta {
  pallets: readonly { name: string; storage?: { entries: readonly { name: string }[] } }[];
}

/** Per runtime (its registry), its storage items as `pallet.item` in dedot's camelCase. */
const storageNames = new WeakMap<object, Set<string>>();

function storageNamesOf(registry: object, metadata: PalletsMeta): Set<string> {
  let names = storageNames.get(registry);
  if (names === undefined) {
    names = new Set(
      metadata.pallets.flatMap((pallet) =>
        (pallet.storage?.entries ?? []).map(
          (entry) => `${stringCamelCase(pallet.name)}.${stringCamelCase(entry.name)}`,
        ),
      ),
    );
    storageNames.set(registry, names);
  }
  return names;
}

/**
 * dedot's view of a block as RuntimeAt; each storage read (each page of a large one) is bounded by
 * the connection's timeout. Large `multi`s build their keys and decode their values in
 * fastStorage.ts and ask the node with `state_queryStorageAt` directly.
 */
function runtimeAtOf(
  at: {
    query: unknown;
    registry: unknown;
    metadata: { latest: { apis: { name: string }[] } & PalletsMeta };
    runtimeVersion: { specVersion: number };
  },
  connection: KeptConnection,
  node: { blockHash: Hex; queryStorageAt(keys: Hex[], at: Hex): Promise<StorageChangeSet[]> },
): RuntimeAt {
  const query = at.query as Record<string, Record<string, DedotStorage | undefined> | undefined>;
  const apis = new Set(at.metadata.latest.apis.map((api) => api.name));
  const registry = at.registry as TypeRegistry;
  // dedot builds an item's query object from the metadata on every access (a camelCase search of
  // the pallet's items, and an error object made whether found or not): ~13 ms of a block's read
  // on the scale state. So an item the runtime lacks is answered from its item names, an item is
  // made once per block, and its dedot object only when a read needs it (a fast multi does not).
  const names = storageNamesOf(registry, at.metadata.latest);
  const made = new Map<string, RuntimeStorageItem | undefined>();
  return {
    specVersion: at.runtimeVersion.specVersion,
    hasRuntimeApi: (name) => apis.has(name),
    storage(pallet, item) {
      const what = `${pallet}.${item}`;
      if (made.has(what)) return made.get(what);
      const storageItem = names.has(`${stringCamelCase(pallet)}.${stringCamelCase(item)}`)
        ? storageItemOf(query, pallet, item, what, registry, connection, node)
        : undefined;
      made.set(what, storageItem);
      return storageItem;
    },
  };
}

function storageItemOf(
  query: Record<string, Record<string, DedotStorage | undefined> | undefined>,
  pallet: string,
  item: string,
  what: string,
  registry: TypeRegistry,
  connection: KeptConnection,
  node: { blockHash: Hex; queryStorageAt(keys: Hex[], at: Hex): Promise<StorageChangeSet[]> },
): RuntimeStorageItem | undefined {
  let resolved: DedotStorage | undefined;
  const raw = (): DedotStorage => {
    resolved ??= query[pallet]?.[item];
    if (resolved === undefined) throw new Error(`${what}: not in the runtime's metadata`);
    return resolved;
  };
  const bounded = ((...key: unknown[]) => connection.read(what, () => raw()(...key))) as RuntimeStorageItem;
  // Large reads go in pages, each bounded on its own: a mainnet-sized map (the whole `Alpha`
  // map, 100,000+ entries) takes longer than one read may, and a node caps a request's size.
  const fast = fastItemOf(registry, what, () => raw().meta);
  bounded.multi = async (keys) => {
    if (fast === undefined) {
      const chunks: unknown[][] = [];
      for (let at = 0; at < keys.length; at += MULTI_CHUNK) chunks.push(keys.slice(at, at + MULTI_CHUNK));
      const values = await inParallel(chunks, READS_IN_FLIGHT, (chunk) =>
        connection.read(`${what} (${chunk.length} keys)`, () => raw().multi(chunk)),
      );
      return values.flat();
    }
    const encoded = keys.map((key) => fast.encodeKey(key) ?? (raw().rawKey(key) as Hex));
    const unique = [...new Set(encoded)];
    const chunks: Hex[][] = [];
    for (let at = 0; at < unique.length; at += MULTI_CHUNK) chunks.push(unique.slice(at, at + MULTI_CHUNK));
    const found = new Map<string, Hex | null>();
    await inParallel(chunks, READS_IN_FLIGHT, async (chunk) => {
      const sets = await connection.read(`${what} (${chunk.length} keys)`, () =>
        node.queryStorageAt(chunk, node.blockHash),
      );
      for (const [key, value] of sets[0]?.changes ?? []) found.set(key.toLowerCase(), value);
    });
    return encoded.map((key) => fast.decodeValue(found.get(key)));
  };
  bounded.entries = async (...partialKey) => {
    const rows: [unknown, unknown][] = [];
    for (let startKey: string | undefined; ; ) {
      const page = await connection.read(`${what} entries`, () =>
        raw().pagedEntries(...partialKey, {
          pageSize: ENTRIES_PAGE,
          ...(startKey === undefined ? {} : { startKey }),
        }),
      );
      rows.push(...page);
      if (page.length < ENTRIES_PAGE) return rows;
      startKey = raw().rawKey(page.at(-1)![0]);
    }
  };
  return bounded;
}

interface DedotEventRecord {
  phase: { type: string; value?: number };
  event: { pallet: string; palletEvent: string | { name: string; data?: unknown } };
}

function toRuntimeEvent(record: DedotEventRecord, index: number): RuntimeEvent {
  const { pallet, palletEvent } = record.event;
  const named = typeof palletEvent === "string" ? { name: palletEvent, data: undefined } : palletEvent;
  return {
    index,
    ...(record.phase.type === "ApplyExtrinsic" && record.phase.value !== undefined
      ? { extrinsicIndex: record.phase.value }
      : {}),
    pallet,
    name: named.name,
    data: named.data,
  };
}

function readU64Le(hex: Hex): bigint {
  return Buffer.from(hex.slice(2, 18), "hex").readBigUInt64LE(0);
}

const bigMax = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/**
 * The positions StakeInfoRuntimeApi would answer (its `get_stake_info_for_coldkeys`: every staking
 * hotkey of the coldkey on every subnet, non-zero stakes), computed from the share pool's storage
 * (`Alpha`, `TotalHotkeyAlpha`, `TotalHotkeyShares`) with the runtime's fixed-point arithmetic
 * (stakeInfo.ts `shareValue`). A handful of storage reads instead of a runtime call: under
 * chopsticks the call runs wasm for every block and capped the source's rate (bench/native
 * measures it). Undefined when the runtime keeps these items under other names or shapes; the
 * caller then asks the runtime.
 */
async function sharePoolPositions(
  module: Record<string, MapStorage | undefined> | undefined,
  stakers: readonly Hex[],
  hotkeysOf: ReadonlyMap<Hex, readonly Hex[]>,
  netuids: readonly number[],
): Promise<Map<string, ColdkeyPosition[]> | undefined> {
  const [alpha, totalAlpha, totalShares] = ["alpha", "totalHotkeyAlpha", "totalHotkeyShares"].map(
    (name) => module?.[name],
  );
  if (alpha === undefined || totalAlpha === undefined || totalShares === undefined || netuids.length === 0)
    return undefined;
  const triples = stakers.flatMap((coldkey) =>
    (hotkeysOf.get(coldkey) ?? []).flatMap((hotkey) => netuids.map((netuid) => [hotkey, coldkey, netuid] as const)),
  );
  const pairKey = (hotkey: Hex, netuid: number) => `${hotkey}:${netuid}`;
  const pairs = [
    ...new Map(triples.map(([hotkey, , netuid]) => [pairKey(hotkey, netuid), [hotkey, netuid] as const])).values(),
  ];
  const [shares, alphas, totals] = await Promise.all([
    alpha.multi(triples),
    totalAlpha.multi(pairs),
    totalShares.multi(pairs),
  ]);
  const pool = new Map<string, { alpha: bigint; sharesBits: bigint; arithmetic: ShareArithmetic }>();
  for (const [index, [hotkey, netuid]] of pairs.entries()) {
    const poolAlpha = alphas[index];
    const sharesBits = fixedBits(totals[index]);
    const arithmetic = shareArithmeticOf(totals[index]);
    if (typeof poolAlpha !== "bigint" || sharesBits === undefined || arithmetic === undefined) return undefined;
    pool.set(pairKey(hotkey, netuid), { alpha: poolAlpha, sharesBits, arithmetic });
  }
  const positions = new Map<string, ColdkeyPosition[]>(stakers.map((coldkey) => [coldkey, []]));
  for (const [index, [hotkey, coldkey, netuid]] of triples.entries()) {
    const shareBits = fixedBits(shares[index]);
    if (shareBits === undefined) return undefined;
    const { alpha: poolAlpha, sharesBits, arithmetic } = pool.get(pairKey(hotkey, netuid))!;
    const stakeNalpha = shareValue(poolAlpha, sharesBits, shareBits, arithmetic);
    if (stakeNalpha > 0n) positions.get(coldkey)!.push({ netuid, hotkey, stakeNalpha });
  }
  for (const list of positions.values()) list.sort((a, b) => a.netuid - b.netuid || (a.hotkey < b.hotkey ? -1 : 1));
  return positions;
}
