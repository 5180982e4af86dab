import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { secondRuntime, subtensorChainSpec } from "@platform/devnet";
import { type RunningChopsticks, startChopsticks, tempDir } from "@platform/testing";
import { ApiPromise, Keyring, WsProvider } from "@polkadot/api";
import type { SubmittableExtrinsic } from "@polkadot/api/types";
import { importDependencyOf } from "./importDependency.js";

/**
 * `twox128("System") ++ twox128("Events")`; run.ts checks it against each client's own key. (The
 * key `…80d41e5e16056765bc8461e2ac88b9ee` the brief quoted is not it: that storage is empty.)
 */
export const SYSTEM_EVENTS_KEY = "0x26aa394eea5630e07c48ae0c9558cef780d41e5e16056765bc8461851072c9d7";

type KeyPair = ReturnType<Keyring["addFromUri"]>;

export interface BacklogBlock {
  hash: string;
  number: number;
  specVersion: number;
  /** The number of event records (the SCALE length prefix of System.Events). */
  events: number;
  /** The block that carried `sudo(setCode)`: executed (and its events encoded) by the old runtime, its state holds the new code. */
  upgrade: boolean;
}

export interface Backlog {
  node: RunningChopsticks;
  blocks: BacklogBlock[];
  /** The 50 accounts whose System.Account is read per block (SS58, prefix 42). */
  accounts: string[];
  /** An empty block after the backlog: the head, which the clients query once before a measured pass. */
  headHash: string;
  /**
   * With a second runtime: an empty block before the backlog, executed by it and holding it. Read
   * once before a measured pass, it makes every client load that runtime's metadata, so the pass
   * shows the per-block cost and not a one-off metadata download spread over a few blocks.
   */
  primerHash?: string;
  /** Spec versions in order of use; one entry when no second runtime was found. */
  runtimes: number[];
  secondRuntimeSource?: string;
  buildMs: number;
  /** Stops the node and removes its folder (kept, with the chopsticks log, when BENCH_KEEP_STATE=1). */
  stop(): Promise<void>;
}

export interface BacklogOptions {
  blocks: number;
  transfersPerBlock: number;
  log(message: string): void;
  /** Called once the node answers, before any block is built (e.g. to follow the chain as it grows). */
  onStarted?(node: RunningChopsticks): Promise<void>;
}

const SENDERS = ["//Alice", "//Bob", "//Charlie", "//Dave", "//Eve", "//Ferdie"];
const TRACKED_ACCOUNTS = 50;
const FUNDS = "1000000000000000";

/**
 * Starts chopsticks on the committed chain spec (spec 218) and records a backlog of blocks, each
 * with `transfersPerBlock` signed `balances.transferKeepAlive` from six dev accounts (explicit
 * nonces; every fourth one to a fresh account, so System.NewAccount and Balances.Endowed appear too)
 * and one `sudo(adminUtils.sudoSetNetworkMaxStake)`, whose SubtensorModule.NetworkMaxStakeSet index
 * differs between the two runtimes.
 *
 * With a second runtime: `sudo(system.setCodeWithoutChecks(204))` first (a block outside the
 * backlog, then an empty one: `primerHash`), the first half of the backlog under 204, then `sudo(system.setCode(218))` in a block of
 * its own (with one more NetworkMaxStakeSet, encoded by 204) and the second half under 218 — a
 * client catching up on this backlog meets a runtime upgrade, as an ingestor does on Finney.
 * (A raw dev_setStorage of `:code` does not switch chopsticks 1.5.1's runtime.)
 */
export async function buildBacklog(options: BacklogOptions): Promise<Backlog> {
  const started = performance.now();
  const genesis = subtensorChainSpec();
  const dir = tempDir("native-clients");
  const node = await startChopsticks({ genesis, logFile: join(dir.path, "chopsticks.log") });
  const stop = async () => {
    await node.stop();
    if (process.env.BENCH_KEEP_STATE === "1") options.log(`chopsticks log kept in ${dir.path}`);
    else dir.remove();
  };
  try {
    await options.onStarted?.(node);
    const { cryptoWaitReady } = await importDependencyOf<{ cryptoWaitReady(): Promise<boolean> }>([
      "@polkadot/api",
      "@polkadot/util-crypto",
    ]);
    await cryptoWaitReady();
    const keyring = new Keyring({ type: "sr25519", ss58Format: 42 });
    const senders = SENDERS.map((uri) => keyring.addFromUri(uri));
    const others = Array.from(
      { length: TRACKED_ACCOUNTS - senders.length },
      (_, i) => keyring.addFromUri(`//Alice//native-clients/${i}`).address,
    );
    const accounts = [...senders.map((pair) => pair.address), ...others];
    await node.request("dev_setStorage", [
      {
        System: { Account: accounts.map((address) => [[address], { providers: 1, data: { free: FUNDS } }]) },
        Sudo: { Key: accounts[0] },
      },
    ]);
    const api = await ApiPromise.create({ provider: new WsProvider(node.rpcUrl), noInitWarn: true });
    try {
      const chain = new ChainWriter(node, api, senders);
      const second = secondRuntimeCode();
      const runtimes = [await chain.specVersion()];
      const upgradeAt = second === undefined ? -1 : Math.floor(options.blocks / 2);
      let primerHash: string | undefined;
      if (second !== undefined) {
        const original = chainSpecCode(genesis);
        await chain.setCode(second.code, { withoutChecks: true, withEvent: false });
        runtimes.push(await chain.specVersion());
        options.log(
          `runtime ${runtimes[0]} → ${runtimes[1]} before the backlog (${second.source}); upgrade back at backlog block ${upgradeAt}`,
        );
        second.original = original;
        primerHash = await node.newBlocks(1);
      }
      const blocks: BacklogBlock[] = [];
      for (let b = 0; b < options.blocks; b++) {
        if (b === upgradeAt && second?.original !== undefined) {
          blocks.push(await chain.setCode(second.original, { withoutChecks: false, withEvent: true }));
          runtimes.push(await chain.specVersion());
        }
        const block = await chain.transferBlock(b, options.transfersPerBlock, others);
        if (block.events < 100)
          throw new Error(`backlog block ${block.number} has ${block.events} events, fewer than 100`);
        blocks.push(block);
        if ((b + 1) % 10 === 0)
          options.log(`backlog: ${b + 1}/${options.blocks} blocks (${Math.round(performance.now() - started)} ms)`);
      }
      const headHash = await node.newBlocks(1);
      return {
        node,
        blocks,
        accounts,
        headHash,
        primerHash,
        runtimes,
        secondRuntimeSource: second?.source,
        buildMs: performance.now() - started,
        stop,
      };
    } finally {
      await api.disconnect();
    }
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Signs with @polkadot/api (a separate instance from the one measured) and submits over raw JSON-RPC. */
class ChainWriter {
  readonly #nonces = new Map<string, number>();

  constructor(
    private readonly node: RunningChopsticks,
    private readonly api: ApiPromise,
    private readonly senders: KeyPair[],
  ) {}

  async specVersion(at?: string): Promise<number> {
    const version = await this.node.request<{ specVersion: number }>(
      "state_getRuntimeVersion",
      at === undefined ? [] : [at],
    );
    return version.specVersion;
  }

  async transferBlock(index: number, transfers: number, tracked: string[]): Promise<BacklogBlock> {
    const bySender = new Map<KeyPair, string[]>();
    const alice = this.#alice();
    bySender.set(alice, [await this.#sign(alice, this.#maxStakeCall(index))]);
    for (let i = 0; i < transfers; i++) {
      const sender = this.senders[i % this.senders.length] as KeyPair;
      const dest = i % 4 === 3 ? freshAddress(index, i) : (tracked[(index * transfers + i) % tracked.length] as string);
      const amount = 1_000_000_000n + BigInt(index) * 1_000n + BigInt(i);
      const signed = await this.#sign(sender, this.#call("balances", "transferKeepAlive", dest, amount));
      bySender.set(sender, [...(bySender.get(sender) ?? []), signed]);
    }
    return this.#newBlock([...bySender.values()].flat(), false);
  }

  /** `sudo(system.setCode)` in a block of its own; `withEvent` adds a NetworkMaxStakeSet in the same call (sudo(batchAll)). */
  async setCode(code: string, options: { withoutChecks: boolean; withEvent: boolean }): Promise<BacklogBlock> {
    const alice = this.#alice();
    const setCode = this.#call("system", options.withoutChecks ? "setCodeWithoutChecks" : "setCode", code);
    // sudoUncheckedWeight: setCode weighs a whole block, with the batch it would exceed it.
    const call = options.withEvent
      ? this.#call(
          "sudo",
          "sudoUncheckedWeight",
          this.#call("utility", "batchAll", [
            this.#call("adminUtils", "sudoSetNetworkMaxStake", 1, 777_000_000_000n),
            setCode,
          ]),
          { refTime: 1_000_000_000, proofSize: 100_000 },
        )
      : this.#call("sudo", "sudo", setCode);
    const before = await this.specVersion();
    const block = await this.#newBlock([await this.#sign(alice, call)], true);
    const after = await this.specVersion(block.hash);
    if (after === before)
      throw new Error(`sudo(setCode) in block ${block.number} did not change the runtime (still spec ${before})`);
    // The signer must know the new runtime's metadata before it builds the next calls.
    for (let tries = 0; this.api.runtimeVersion.specVersion.toNumber() !== after; tries++) {
      if (tries > 100) throw new Error(`@polkadot/api did not follow the runtime upgrade to ${after}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return block;
  }

  #alice(): KeyPair {
    return this.senders[0] as KeyPair;
  }

  #maxStakeCall(index: number): SubmittableExtrinsic<"promise"> {
    return this.#call(
      "sudo",
      "sudo",
      this.#call("adminUtils", "sudoSetNetworkMaxStake", 1, 500_000_000_000n + BigInt(index)),
    );
  }

  /** A call by name, from the signer's current metadata (Subtensor's pallets are not in @polkadot/api's Substrate types). */
  #call(pallet: string, method: string, ...args: unknown[]): SubmittableExtrinsic<"promise"> {
    const create = this.api.tx[pallet]?.[method];
    if (create === undefined)
      throw new Error(`runtime ${this.api.runtimeVersion.specVersion.toNumber()} has no call ${pallet}.${method}`);
    return create(...args);
  }

  async #sign(sender: KeyPair, call: SubmittableExtrinsic<"promise">): Promise<string> {
    const nonce =
      this.#nonces.get(sender.address) ??
      (await this.node.request<number>("system_accountNextIndex", [sender.address]));
    this.#nonces.set(sender.address, nonce + 1);
    const signed = await call.signAsync(sender, { nonce, era: 0 });
    return signed.toHex();
  }

  /**
   * A block of exactly these extrinsics, each sender's in nonce order: `dev_newBlock`'s
   * `transactions` skip chopsticks' pool, whose validation (one runtime call each) would take about
   * as long as building the block. The block must hold them all (the events count is checked).
   */
  async #newBlock(extrinsics: string[], upgrade: boolean): Promise<BacklogBlock> {
    const hash = await this.node.request<string>("dev_newBlock", [{ count: 1, transactions: extrinsics }]);
    const [header, events, specVersion] = await Promise.all([
      this.node.request<{ number: string }>("chain_getHeader", [hash]),
      this.node.request<string | null>("state_getStorage", [SYSTEM_EVENTS_KEY, hash]),
      this.specVersion(hash),
    ]);
    return {
      hash,
      number: Number(header.number),
      specVersion,
      events: events === null ? 0 : compactPrefix(events),
      upgrade,
    };
  }
}

const addressCodec = new Keyring({ ss58Format: 42 });

/** A fresh, never-funded account per (block, transfer): a 32-byte key derived from both, as SS58. */
function freshAddress(block: number, transfer: number): string {
  const key = createHash("sha256").update(`native-clients/${block}/${transfer}`).digest();
  return addressCodec.encodeAddress(key);
}

/** The value of a SCALE compact integer at the start of a hex string (the length of a Vec). */
export function compactPrefix(hex: string): number {
  const bytes = Buffer.from(hex.slice(2, 20), "hex");
  const first = bytes[0] ?? 0;
  switch (first & 3) {
    case 0:
      return first >> 2;
    case 1:
      return bytes.readUInt16LE(0) >> 2;
    case 2:
      return bytes.readUInt32LE(0) >>> 2;
    default:
      throw new Error("event vector longer than 2^30");
  }
}

interface SecondRuntime {
  code: string;
  source: string;
  original?: string;
}

/**
 * The second runtime: BENCH_SECOND_RUNTIME (a file of `:code` bytes, or a raw chain spec), "0" for
 * none, by default deploy/devnet's `secondRuntime()` — spec 204 of the same raonet line, sha256
 * checked. Spec 204 numbers 14 SubtensorModule events one higher than 218 (NetworkMaxStakeSet is
 * 70 there, 69 in 218), which every backlog block emits.
 */
function secondRuntimeCode(): SecondRuntime | undefined {
  const path = process.env.BENCH_SECOND_RUNTIME;
  if (path === "0") return undefined;
  if (path === undefined || path === "") {
    const fixture = secondRuntime();
    return { code: fixture.code, source: `${fixture.path} (spec ${fixture.specVersion}, sha256 checked)` };
  }
  if (path.endsWith(".json")) return { code: chainSpecCode(path), source: path };
  return { code: `0x${readFileSync(path).toString("hex")}`, source: path };
}

/** `:code` of a raw chain spec's genesis. */
function chainSpecCode(path: string): string {
  const spec = JSON.parse(readFileSync(path, "utf8")) as { genesis: { raw: { top: Record<string, string> } } };
  const code = spec.genesis.raw.top["0x3a636f6465"];
  if (code === undefined) throw new Error(`${path}: no :code in genesis.raw.top`);
  return code;
}
