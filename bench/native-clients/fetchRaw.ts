import { type BacklogBlock, SYSTEM_EVENTS_KEY } from "./chain.js";
import { importDependencyOf } from "./importDependency.js";
import type { RawRpc } from "./rawRpc.js";

/** One block's bytes as the node serves them, fetched once: the decoders are measured on these. */
export interface RawBlock extends BacklogBlock {
  parentHash: string;
  /** The spec version that executed the block (the runtime in its parent's state), which selects its metadata. */
  runtime: number;
  eventsHex: string;
  /** System.Account of each tracked account, in `accounts` order. */
  accountsHex: string[];
}

export interface RawData {
  blocks: RawBlock[];
  /** V15 metadata bytes (`Metadata_metadata_at_version(15)`), per spec version. */
  metadata: Map<number, Uint8Array>;
  /** System.Account storage keys of the tracked accounts, built here without any client. */
  accountKeys: string[];
  /** blake2_256 of `:code` in each block's state (the backlog's and `otherBlocks`). */
  codeHashes: Map<string, string>;
}

interface UtilCrypto {
  xxhashAsU8a(data: string, bitLength: number): Uint8Array;
  blake2AsU8a(data: Uint8Array, bitLength: number): Uint8Array;
  decodeAddress(address: string): Uint8Array;
}

/** `twox128("System") ++ twox128("Account") ++ blake2_128(id) ++ id`, per frame_system's Blake2_128Concat map. */
export async function accountStorageKeys(addresses: string[]): Promise<string[]> {
  const crypto = await importDependencyOf<UtilCrypto>(["@polkadot/api", "@polkadot/util-crypto"]);
  const prefix = Buffer.concat([crypto.xxhashAsU8a("System", 128), crypto.xxhashAsU8a("Account", 128)]);
  return addresses.map((address) => {
    const id = crypto.decodeAddress(address);
    return `0x${Buffer.concat([prefix, crypto.blake2AsU8a(id, 128), id]).toString("hex")}`;
  });
}

/** `otherBlocks`: blocks outside the backlog the clients read too (the head, the primer), for `codeHashes`. */
export async function fetchRaw(
  rpc: RawRpc,
  blocks: BacklogBlock[],
  otherBlocks: string[],
  accounts: string[],
): Promise<RawData> {
  const accountKeys = await accountStorageKeys(accounts);
  const codeHashes = await codeHashesOf(rpc, [...blocks.map((block) => block.hash), ...otherBlocks]);
  const metadata = new Map<number, Uint8Array>();
  const raw: RawBlock[] = [];
  for (const block of blocks) {
    const header = await rpc.request<{ parentHash: string }>("chain_getHeader", [block.hash]);
    const runtime = (await rpc.request<{ specVersion: number }>("state_getRuntimeVersion", [header.parentHash]))
      .specVersion;
    if (!metadata.has(runtime)) metadata.set(runtime, await metadataAt(rpc, header.parentHash));
    const eventsHex = await fetchEvents(rpc, block.hash);
    const accountsHex = await fetchAccounts(rpc, block.hash, accountKeys);
    raw.push({ ...block, parentHash: header.parentHash, runtime, eventsHex, accountsHex });
  }
  return { blocks: raw, metadata, accountKeys, codeHashes };
}

/** `:code`'s hash in each block's state: the Wasm fetched once per spec version, hashed with blake2_256. */
async function codeHashesOf(rpc: RawRpc, hashes: string[]): Promise<Map<string, string>> {
  const crypto = await importDependencyOf<UtilCrypto>(["@polkadot/api", "@polkadot/util-crypto"]);
  const bySpec = new Map<number, string>();
  const result = new Map<string, string>();
  for (const hash of hashes) {
    const spec = (await rpc.request<{ specVersion: number }>("state_getRuntimeVersion", [hash])).specVersion;
    let codeHash = bySpec.get(spec);
    if (codeHash === undefined) {
      const code = await rpc.request<string>("state_getStorage", ["0x3a636f6465", hash]);
      codeHash = `0x${Buffer.from(crypto.blake2AsU8a(Buffer.from(code.slice(2), "hex"), 256)).toString("hex")}`;
      bySpec.set(spec, codeHash);
    }
    result.set(hash, codeHash);
  }
  return result;
}

/** The events baseline: System.Events' bytes at a block, nothing else. */
export async function fetchEvents(rpc: RawRpc, blockHash: string): Promise<string> {
  const value = await rpc.request<string | null>("state_getStorage", [SYSTEM_EVENTS_KEY, blockHash]);
  if (value === null) throw new Error(`no System.Events at ${blockHash}`);
  return value;
}

/** The accounts baseline: the tracked accounts' System.Account bytes at a block, in one state_queryStorageAt. */
export async function fetchAccounts(rpc: RawRpc, blockHash: string, keys: string[]): Promise<string[]> {
  const [changeSet] = await rpc.request<{ changes: [string, string | null][] }[]>("state_queryStorageAt", [
    keys,
    blockHash,
  ]);
  const byKey = new Map(changeSet?.changes ?? []);
  return keys.map((key) => {
    const value = byKey.get(key);
    if (value === undefined || value === null) throw new Error(`no System.Account ${key} at ${blockHash}`);
    return value;
  });
}

/** V15 metadata at a block: `Metadata_metadata_at_version(15)` answers SCALE `Option<Vec<u8>>`. */
async function metadataAt(rpc: RawRpc, blockHash: string): Promise<Uint8Array> {
  const answer = Buffer.from(
    (await rpc.request<string>("state_call", ["Metadata_metadata_at_version", "0x0f000000", blockHash])).slice(2),
    "hex",
  );
  if (answer[0] !== 1) throw new Error(`the runtime at ${blockHash} has no V15 metadata`);
  const mode = (answer[1] ?? 0) & 3;
  const prefixBytes = mode === 0 ? 1 : mode === 1 ? 2 : 4;
  return new Uint8Array(answer.subarray(1 + prefixBytes));
}
