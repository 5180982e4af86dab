import { ApiPromise, Keyring, WsProvider } from "@polkadot/api";
import type { QueryableStorageEntry, SubmittableExtrinsicFunction } from "@polkadot/api/types";
import type { KeyringPair } from "@polkadot/keyring/types";
import { cryptoWaitReady } from "@polkadot/util-crypto";

/** The well-known Substrate dev accounts (`//Alice` …), the ones the seed funds and the simulator signs with. */
export const NATIVE_DEV_ACCOUNT_NAMES = ["Alice", "Bob", "Charlie", "Dave", "Eve", "Ferdie"] as const;
export type NativeDevAccountName = (typeof NATIVE_DEV_ACCOUNT_NAMES)[number];

/** Subtensor's SS58 prefix. */
const SS58_PREFIX = 42;

/** A connection to a Subtensor node's Substrate JSON-RPC. */
export interface NativeChain {
  api: ApiPromise;
  /** Any JSON-RPC method, for the dev ones (`dev_setStorage`, `dev_newBlock`) the typed API does not know. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  close(): Promise<void>;
}

/** Connects over WebSocket; rejects instead of retrying forever when the node is not there. */
export async function connectNativeChain(rpcUrl: string): Promise<NativeChain> {
  const provider = new WsProvider(rpcUrl, 1_000, {}, 30_000);
  const api = await ApiPromise.create({ provider, noInitWarn: true, throwOnConnect: true });
  return {
    api,
    rpc: <T>(method: string, params: unknown[] = []) => provider.send<T>(method, params),
    close: () => api.disconnect(),
  };
}

/** An sr25519 keyring with Subtensor's SS58 prefix, once the crypto Wasm is ready. */
export async function nativeKeyring(): Promise<Keyring> {
  await cryptoWaitReady();
  return new Keyring({ type: "sr25519", ss58Format: SS58_PREFIX });
}

/** The key pair of a dev account; `//Alice` and friends are public test keys, not secrets. */
export function nativeDevPair(keyring: Keyring, name: string): KeyringPair {
  return keyring.addFromUri(`//${name}`);
}

/**
 * A call of the runtime as the metadata declares it. Subtensor's pallets are not in polkadot-js's
 * built-in typings, and their calls change between runtime versions, so a missing one is named.
 */
export function nativeTx(api: ApiPromise, pallet: string, call: string): SubmittableExtrinsicFunction<"promise"> {
  const fn = api.tx[pallet]?.[call];
  if (fn === undefined)
    throw new Error(`this runtime (spec ${api.runtimeVersion.specVersion.toString()}) has no call ${pallet}.${call}`);
  return fn;
}

/** A storage item as the metadata declares it; a missing one is named, as for calls. */
export function nativeStorage(api: ApiPromise, pallet: string, item: string): QueryableStorageEntry<"promise"> {
  const entry = api.query[pallet]?.[item];
  if (entry === undefined)
    throw new Error(
      `this runtime (spec ${api.runtimeVersion.specVersion.toString()}) has no storage ${pallet}.${item}`,
    );
  return entry;
}

/** A storage item read at the head, as a bigint (balances, alpha, costs are all integers). */
export async function readNativeInteger(
  api: ApiPromise,
  pallet: string,
  item: string,
  ...keys: unknown[]
): Promise<bigint> {
  return BigInt((await nativeStorage(api, pallet, item)(...keys)).toString());
}
