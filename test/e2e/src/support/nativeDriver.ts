import { randomBytes } from "node:crypto";
import {
  blockEvents,
  connectNativeChain,
  eventsOfExtrinsic,
  extrinsicFailure,
  type NativeChain,
  nativeDevPair,
  nativeKeyring,
  nativeTx,
} from "@platform/devnet";
import { type BlockTimerState, rpcRequest } from "@platform/testing";
import type { SubmittableExtrinsic } from "@polkadot/api/types";

/** A signing key of the chain (sr25519, SS58 prefix 42). */
export type KeyringPair = ReturnType<typeof nativeDevPair>;

/*
 * The end-to-end tests' hands on the native chain (the real Subtensor runtime under chopsticks,
 * started without a block timer): real signed extrinsics, each block built on demand with exactly
 * the extrinsics given, and the node's dev methods for a reorganisation.
 *
 * Why the extrinsics go in with `dev_newBlock {transactions}` rather than through the pool: the node
 * validates each pooled extrinsic with a runtime call on submission (about 0.1-0.2 s each here), and
 * a block built from the pool takes what is there; given to the block directly, every block holds
 * exactly what the test says and nothing of a concurrent caller's. For the same reason nonces are
 * read from the head's state, not from the pool (chopsticks' `system_accountNextIndex` counts the
 * pool's extrinsics of the account too, which the stack's simulator may have put there).
 */

export interface NativeCallSpec {
  tx: SubmittableExtrinsic<"promise">;
  signer: KeyringPair;
}

/** A block the driver built, with where each of the given extrinsics landed. */
export interface BuiltBlock {
  number: number;
  hash: string;
  parentHash: string;
  /** blake2_256 of each given extrinsic, in the order given; its index in the block is its position + 1 (the timestamp inherent is 0). */
  extrinsicHashes: string[];
  /** When the node answered that it had built the block (Date.now()): from then on it is the head. */
  builtAtMs: number;
}

export interface NativeDriver {
  chain: NativeChain;
  /** The dev account `//<name>` (the stack's seed funds Alice … Ferdie with 1,000,000 TAO each). */
  dev(name: string): KeyringPair;
  /** A new sr25519 key nobody else signs with. */
  fresh(): KeyringPair;
  tx(pallet: string, call: string): (...args: unknown[]) => SubmittableExtrinsic<"promise">;
  /**
   * Signs the calls (each signer's nonces counted from the head, in order), builds one block holding
   * exactly them, and checks that every one is in it and succeeded; the block.
   */
  block(calls: readonly NativeCallSpec[]): Promise<BuiltBlock>;
  /** Builds `count` blocks without extrinsics; the new head. */
  emptyBlocks(count: number): Promise<{ number: number; hash: string }>;
  head(): Promise<{ number: number; hash: string }>;
  /** `dev_setHead`: the head goes back to this block; the next block built forks from it. */
  setHead(hash: string): Promise<void>;
  /**
   * Holds the node's block timer, on a stack that has one (`dev_pauseBlockTimer`): resolves once no
   * timer block is being built, so the chain is the caller's until `resumeTimer`.
   */
  pauseTimer(): Promise<BlockTimerState>;
  resumeTimer(): Promise<BlockTimerState>;
  close(): Promise<void>;
}

export async function connectNativeDriver(rpcUrl: string, httpUrl: string): Promise<NativeDriver> {
  const chain = await connectNativeChain(rpcUrl);
  const keyring = await nativeKeyring();
  const { api } = chain;
  const rpc = <T>(method: string, params: unknown[] = []) => rpcRequest<T>(httpUrl, method, params);
  const head = async () => {
    const header = await rpc<{ number: string }>("chain_getHeader");
    const number = Number(header.number);
    return { number, hash: await rpc<string>("chain_getBlockHash", [number]) };
  };

  const stateNonce = async (address: string) =>
    Number(((await api.query.system!.account!(address)).toJSON() as { nonce: number }).nonce);

  // One block at a time, signing included: the test and its background loop share dev accounts,
  // and a nonce read while another caller's block is being built would be that block's too.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  const buildBlock = async (calls: readonly NativeCallSpec[]): Promise<BuiltBlock> => {
    const nonces = new Map<string, number>();
    const signed: SubmittableExtrinsic<"promise">[] = [];
    for (const { tx, signer } of calls) {
      const nonce = nonces.get(signer.address) ?? (await stateNonce(signer.address));
      nonces.set(signer.address, nonce + 1);
      signed.push(await tx.signAsync(signer, { nonce, era: 0 }));
    }
    const hash = await rpc<string>("dev_newBlock", [
      calls.length === 0 ? {} : { transactions: signed.map((extrinsic) => extrinsic.toHex()) },
    ]);
    const builtAtMs = Date.now();
    const built = await api.rpc.chain.getBlock(hash);
    const inBlock = built.block.extrinsics.map((extrinsic) => extrinsic.hash.toHex());
    const extrinsicHashes = signed.map((extrinsic) => extrinsic.hash.toHex());
    const missing = extrinsicHashes.filter((extrinsicHash, index) => inBlock[index + 1] !== extrinsicHash);
    if (missing.length > 0)
      throw new Error(
        `block ${hash}: ${missing.length} of ${calls.length} extrinsics not where they were put (the runtime refused them)`,
      );
    const records = await blockEvents(api, hash);
    calls.forEach((call, index) => {
      const failure = extrinsicFailure(api, eventsOfExtrinsic(records, index + 1));
      if (failure !== undefined)
        throw new Error(
          `${call.tx.method.section}.${call.tx.method.method} of ${call.signer.address} failed in block ${hash}: ${failure}`,
        );
    });
    return {
      number: built.block.header.number.toNumber(),
      hash,
      parentHash: built.block.header.parentHash.toHex(),
      extrinsicHashes,
      builtAtMs,
    };
  };

  return {
    chain,
    dev: (name) => nativeDevPair(keyring, name),
    fresh: () => keyring.addFromSeed(randomBytes(32)),
    tx: (pallet, call) => nativeTx(api, pallet, call) as (...args: unknown[]) => SubmittableExtrinsic<"promise">,
    block: (calls) => serially(() => buildBlock(calls)),
    emptyBlocks: (count) =>
      serially(async () => {
        await rpc("dev_newBlock", [{ count }]);
        return head();
      }),
    head,
    setHead: (hash) =>
      serially(async () => {
        await rpc("dev_setHead", [hash]);
      }),
    pauseTimer: () => serially(() => rpc<BlockTimerState>("dev_pauseBlockTimer")),
    resumeTimer: () => serially(() => rpc<BlockTimerState>("dev_resumeBlockTimer")),
    close: () => chain.close(),
  };
}
