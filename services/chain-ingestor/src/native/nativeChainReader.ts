import type { SubstrateNetwork } from "@platform/chain";
import { LegacyClient, WsProvider } from "dedot";
import { blake2AsHex } from "dedot/utils";
import type { Hex } from "viem";
import type { BlockHeader } from "../follower/blocks.js";
import { ForkDuringReadError } from "../follower/blockFollower.js";
import type { NativeBlockFacts, RuntimeEvent } from "./runtimeEvent.js";
import { decodeStakeInfoForColdkeys, type ColdkeyPosition } from "./stakeInfo.js";

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
  /** Every alpha position of the coldkeys; undefined when the runtime has no StakeInfoRuntimeApi. */
  positionsAt(blockHash: Hex, coldkeys: readonly Hex[]): Promise<Map<string, ColdkeyPosition[]> | undefined>;
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

/** Connects to the network's Substrate RPC (WebSocket; reconnects by itself) and resolves once it answers. */
export async function connectNativeChain(network: SubstrateNetwork): Promise<NativeChainReader> {
  const provider = new WsProvider({ endpoint: network.rpcUrl, timeout: network.rpc.timeoutMs, retryDelayMs: Math.max(250, network.rpc.retryDelayMs) });
  const client = await withTimeout(LegacyClient.new({ provider, cacheMetadata: false, throwOnUnknownApi: false }), network.rpc.timeoutMs * 3, `connecting to ${network.rpcUrl}`).catch(
    async (error: unknown) => {
      await provider.disconnect().catch(() => undefined);
      throw error;
    },
  );
  // Untyped access to the raw JSON-RPC methods (dedot's typed rpc proxies any method name).
  const rpc = client.rpc as unknown as Record<string, (...params: unknown[]) => Promise<unknown>>;

  // dedot hands a JSON-RPC `null` result (no such block, header or storage value) back as `undefined`.
  const headerAt = async (hash: Hex, raw: RawHeader | undefined): Promise<BlockHeader | undefined> => {
    if (raw === undefined) return undefined;
    const timestamp = (await rpc["state_getStorage"]!(TIMESTAMP_NOW_KEY, hash)) as Hex | undefined;
    return {
      number: BigInt(raw.number),
      hash: hash.toLowerCase() as Hex,
      parentHash: raw.parentHash.toLowerCase() as Hex,
      timestamp: timestamp === undefined ? 0n : readU64Le(timestamp) / 1_000n,
    };
  };

  return {
    async heads() {
      const [best, finalizedHash] = await Promise.all([rpc["chain_getHeader"]!() as Promise<RawHeader>, rpc["chain_getFinalizedHead"]!() as Promise<Hex>]);
      const finalized = (await rpc["chain_getHeader"]!(finalizedHash)) as RawHeader;
      return { best: BigInt(best.number), finalized: BigInt(finalized.number) };
    },

    async headersAt(numbers) {
      const headers = await Promise.all(
        numbers.map(async (number) => {
          const hash = (await rpc["chain_getBlockHash"]!(Number(number))) as Hex | undefined;
          if (hash === undefined) return undefined;
          return headerAt(hash, (await rpc["chain_getHeader"]!(hash)) as RawHeader | undefined);
        }),
      );
      return headers.filter((header): header is BlockHeader => header !== undefined);
    },

    async headerOf(hash) {
      return headerAt(hash, (await rpc["chain_getHeader"]!(hash)) as RawHeader | undefined);
    },

    async blockFacts(header) {
      const [at, block] = await Promise.all([client.at(header.hash), rpc["chain_getBlock"]!(header.hash) as Promise<{ block: { extrinsics: Hex[] } } | undefined>]);
      if (block === undefined) throw new ForkDuringReadError(`block ${header.number} (${header.hash}) vanished while it was read`);
      const records = (await at.query.system.events()) as unknown as DedotEventRecord[];
      return {
        number: header.number,
        extrinsicHashes: block.block.extrinsics.map((extrinsic) => blake2AsHex(extrinsic) as Hex),
        events: records.map(toRuntimeEvent),
      };
    },

    async balancesAt(blockHash, accounts) {
      const balances = new Map<string, NativeAccountBalance>();
      if (accounts.length === 0) return balances;
      const at = await client.at(blockHash);
      const values = (await at.query.system.account.multi([...accounts])) as unknown as { data: Record<string, bigint> }[];
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
    },

    async positionsAt(blockHash, coldkeys) {
      if (coldkeys.length === 0) return new Map();
      const at = await client.at(blockHash);
      const hasApi = at.metadata.latest.apis.some((api) => api.name === "StakeInfoRuntimeApi");
      if (!hasApi) return undefined;
      // A runtime call executes the runtime (tens of ms on a node); storage reads are cheap. Only
      // coldkeys that stake through some hotkey (`StakingHotkeys`) can hold a position.
      const query = at.query as unknown as { subtensorModule?: { stakingHotkeys?: { multi(keys: Hex[]): Promise<unknown[][]> } } };
      const stakingHotkeys = query.subtensorModule?.stakingHotkeys;
      let stakers = [...coldkeys];
      if (stakingHotkeys !== undefined) {
        const lists = await stakingHotkeys.multi([...coldkeys]);
        stakers = coldkeys.filter((_, index) => (lists[index]?.length ?? 0) > 0);
      }
      const positions = new Map<string, ColdkeyPosition[]>(coldkeys.map((coldkey) => [coldkey, []]));
      if (stakers.length === 0) return positions;
      const call = at.call as unknown as { stakeInfoRuntimeApi: { getStakeInfoForColdkeys(coldkeys: Hex[]): Promise<unknown> } };
      for (const [coldkey, list] of decodeStakeInfoForColdkeys(await call.stakeInfoRuntimeApi.getStakeInfoForColdkeys(stakers))) positions.set(coldkey, list);
      return positions;
    },

    async onNewHead(onHead) {
      await client.rpc.chain_subscribeNewHeads(() => onHead());
    },

    async close() {
      await client.disconnect().catch(() => undefined);
    },
  };
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
    ...(record.phase.type === "ApplyExtrinsic" && record.phase.value !== undefined ? { extrinsicIndex: record.phase.value } : {}),
    pallet,
    name: named.name,
    data: named.data,
  };
}

function readU64Le(hex: Hex): bigint {
  let value = 0n;
  for (let byte = 7; byte >= 0; byte--) value = (value << 8n) | BigInt(parseInt(hex.slice(2 + byte * 2, 4 + byte * 2) || "0", 16));
  return value;
}

const bigMax = (a: bigint, b: bigint): bigint => (a > b ? a : b);

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
