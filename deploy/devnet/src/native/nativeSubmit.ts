import { PlatformError } from "@platform/errors/base";
import type { ApiPromise } from "@polkadot/api";
import type { SubmittableExtrinsic } from "@polkadot/api/types";
import type { KeyringPair } from "@polkadot/keyring/types";
import type { NativeChain } from "./nativeChain.js";
import { blockEvents, eventsOfExtrinsic, extrinsicFailure, type NativeEventRecord } from "./nativeEvents.js";

/** One extrinsic to send: signed by `signer`, or unsigned (e.g. `ethereum.transact`) without one. */
export interface NativeCall {
  /** Names the call in errors and in the seed's description. */
  label: string;
  tx: SubmittableExtrinsic<"promise">;
  signer?: KeyringPair;
}

/** Where an extrinsic landed, with the events it emitted. */
export interface LandedCall {
  label: string;
  /** `pallet.call` as the metadata names it. */
  call: string;
  blockNumber: number;
  blockHash: `0x${string}`;
  extrinsicIndex: number;
  extrinsicHash: `0x${string}`;
  events: NativeEventRecord["event"][];
}

export interface BlockProducer {
  /** Builds a block on demand (tests: `() => node.newBlocks(1)`); absent: wait for the node's own blocks. */
  buildBlock?: (() => Promise<unknown>) | undefined;
  /** How long to wait for the calls to land when the node builds blocks itself. Default 60 s. */
  timeoutMs?: number;
}

/** Blocks built on demand before a call still missing is given up for dropped. */
const MAX_BUILT_BLOCKS = 3;

export class NativeCallError extends PlatformError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, { code: "NATIVE_CALL_FAILED", retryable: false, cause: options?.cause });
  }
}

/**
 * Sends calls so that they share a block (each signer's nonces counted here, so several calls of one
 * account go in together), waits until every one has landed and checks each succeeded; throws a
 * NativeCallError naming the first call that was refused, dropped or failed.
 */
export async function sendNativeCalls(
  chain: NativeChain,
  calls: readonly NativeCall[],
  producer: BlockProducer = {},
): Promise<LandedCall[]> {
  const { api } = chain;
  const startNumber = await headNumber(api);
  const signed = await signAll(api, calls);
  for (const [index, tx] of signed.entries()) {
    await api.rpc.author.submitExtrinsic(tx).catch((error: unknown) => {
      throw new NativeCallError(
        `${calls[index]!.label}: the node refused it: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }
  const hashes = signed.map((tx) => tx.hash.toHex());
  const found = await awaitInclusion(api, hashes, startNumber, producer);
  const eventsByBlock = new Map<string, Promise<NativeEventRecord[]>>();
  const eventsOf = (blockHash: string) => {
    if (!eventsByBlock.has(blockHash)) eventsByBlock.set(blockHash, blockEvents(api, blockHash));
    return eventsByBlock.get(blockHash)!;
  };
  return Promise.all(
    calls.map((call, index) => landed(api, call, signed[index]!, found.get(hashes[index]!), eventsOf)),
  );
}

async function signAll(api: ApiPromise, calls: readonly NativeCall[]): Promise<SubmittableExtrinsic<"promise">[]> {
  const nonces = new Map<string, number>();
  const signed: SubmittableExtrinsic<"promise">[] = [];
  for (const { tx, signer } of calls) {
    if (signer === undefined) {
      signed.push(tx);
      continue;
    }
    const nonce = nonces.get(signer.address) ?? (await api.rpc.system.accountNextIndex(signer.address)).toNumber();
    nonces.set(signer.address, nonce + 1);
    signed.push(await tx.signAsync(signer, { nonce }));
  }
  return signed;
}

interface Inclusion {
  blockNumber: number;
  blockHash: `0x${string}`;
  extrinsicIndex: number;
}

/** Scans every block after `startNumber` until all hashes are found, building blocks when it may. */
async function awaitInclusion(
  api: ApiPromise,
  hashes: readonly string[],
  startNumber: number,
  producer: BlockProducer,
): Promise<Map<string, Inclusion>> {
  const found = new Map<string, Inclusion>();
  const deadline = Date.now() + (producer.timeoutMs ?? 60_000);
  let scanned = startNumber;
  for (let built = 0; found.size < hashes.length; built++) {
    if (producer.buildBlock !== undefined && built === MAX_BUILT_BLOCKS) break;
    const head =
      producer.buildBlock !== undefined
        ? await producer.buildBlock().then(() => headNumber(api))
        : await nextHead(api, scanned, deadline);
    if (head === undefined) break;
    while (scanned < head) {
      scanned++;
      for (const [hash, inclusion] of await blockInclusions(api, scanned, hashes)) found.set(hash, inclusion);
    }
  }
  return found;
}

async function blockInclusions(
  api: ApiPromise,
  blockNumber: number,
  hashes: readonly string[],
): Promise<[string, Inclusion][]> {
  const blockHash = (await api.rpc.chain.getBlockHash(blockNumber)).toHex();
  const block = await api.rpc.chain.getBlock(blockHash);
  const matches: [string, Inclusion][] = [];
  block.block.extrinsics.forEach((extrinsic, extrinsicIndex) => {
    const hash = extrinsic.hash.toHex();
    if (hashes.includes(hash)) matches.push([hash, { blockNumber, blockHash, extrinsicIndex }]);
  });
  return matches;
}

export async function headNumber(api: ApiPromise): Promise<number> {
  return (await api.rpc.chain.getHeader()).number.toNumber();
}

/** The number of the first head above `after` the node announces, or undefined at the deadline. */
export async function nextHead(api: ApiPromise, after: number, deadline: number): Promise<number | undefined> {
  let settle: (head: number | undefined) => void = () => undefined;
  const result = new Promise<number | undefined>((resolve) => (settle = resolve));
  const timer = setTimeout(() => settle(undefined), Math.max(0, deadline - Date.now()));
  // A new subscription first reports the current head, so a block built meanwhile is not missed.
  const unsubscribe = await api.rpc.chain.subscribeNewHeads((header) => {
    if (header.number.toNumber() > after) settle(header.number.toNumber());
  });
  const head = await result;
  clearTimeout(timer);
  unsubscribe();
  return head;
}

async function landed(
  api: ApiPromise,
  call: NativeCall,
  tx: SubmittableExtrinsic<"promise">,
  inclusion: Inclusion | undefined,
  eventsOf: (blockHash: string) => Promise<NativeEventRecord[]>,
): Promise<LandedCall> {
  const name = `${tx.method.section}.${tx.method.method}`;
  if (inclusion === undefined)
    throw new NativeCallError(
      `${call.label} (${name}) is in none of the blocks built since it was sent: the pool dropped it, or no block came in time`,
    );
  const events = eventsOfExtrinsic(await eventsOf(inclusion.blockHash), inclusion.extrinsicIndex);
  const failure = extrinsicFailure(api, events);
  if (failure !== undefined)
    throw new NativeCallError(`${call.label} (${name}) failed in block #${inclusion.blockNumber}: ${failure}`);
  return { label: call.label, call: name, ...inclusion, extrinsicHash: tx.hash.toHex(), events };
}
