import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PlatformError } from "@platform/errors/base";
import { ApiPromise, HttpProvider } from "@polkadot/api";
import { Keyring } from "@polkadot/keyring";
import { cryptoWaitReady } from "@polkadot/util-crypto";
import { ChainSpecChecksumError } from "./chainSpec.js";

/** The committed second runtime's checksum (chain-spec/README.md says where it comes from). */
export const SECOND_RUNTIME_SHA256 = "72a8df0dd2550d20f5c9af56209d9466d993dc7d8f3edacd3109c45cb0c9f7e1";

/** src/ and dist/ both sit one level below the package root. */
const runtimeFile = fileURLToPath(
  new URL("../../chain-spec/subtensor-spec204.compact.compressed.wasm", import.meta.url),
);

export interface SecondRuntime {
  path: string;
  specName: "node-subtensor";
  specVersion: 204;
  /** The runtime as `:code` holds it: zstd-compressed Wasm with Substrate's prefix 0x52bc537646db8e05. */
  code: `0x${string}`;
}

/**
 * A second Subtensor runtime that runs on the raonet chain: spec 204 of the same raonet line (two
 * months older than the chain spec's 218), after checking its sha256. Its metadata differs from
 * 218's where an indexer notices: 14 SubtensorModule events sit one index higher (NetworkMaxStakeSet
 * is event 70 there, 69 in 218), and some storage items and one call differ.
 */
export function secondRuntime(path: string = runtimeFile): SecondRuntime {
  const bytes = readFileSync(path);
  const actual = createHash("sha256").update(bytes).digest("hex");
  if (actual !== SECOND_RUNTIME_SHA256) {
    throw new ChainSpecChecksumError(
      `${path}: sha256 ${actual}, expected ${SECOND_RUNTIME_SHA256}; restore it from git`,
    );
  }
  return { path, specName: "node-subtensor", specVersion: 204, code: `0x${bytes.toString("hex")}` };
}

/** What upgradeRuntime needs of a chopsticks node (RunningChopsticks from @platform/testing has it). */
export interface DevChain {
  httpUrl: string;
  request<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  newBlocks(count?: number): Promise<string>;
}

export interface RuntimeUpgradeOptions {
  /**
   * `system.setCodeWithoutChecks` instead of `system.setCode`. frame_system's checks refuse a code
   * whose spec version is not higher than the running one, so a downgrade (218 → 204) needs this.
   */
  withoutChecks?: boolean;
}

export interface RuntimeUpgrade {
  /** The block that carried the upgrade: still executed by the old runtime, its state holds the new code. */
  blockHash: string;
  from: number;
  to: number;
}

export class RuntimeUpgradeError extends PlatformError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, { code: "RUNTIME_UPGRADE_FAILED", retryable: false, cause: options?.cause });
  }
}

/**
 * Replaces a chopsticks chain's runtime the way a real chain does: `sudo(system.setCode(code))` in a
 * block of its own, signed by `//Alice`, whom this first makes the sudo key and funds (dev_setStorage;
 * a dev chain's sudo key has no known seed). Blocks after the returned one run the new code.
 *
 * Writing `:code` with a raw dev_setStorage does not work under chopsticks 1.5.1: the head block keeps
 * its cached runtime, and the blocks built after it keep reporting the old runtime version and metadata.
 * A block whose own storage changes carry `:code` (the extrinsic's effect) resets them.
 */
export async function upgradeRuntime(
  chain: DevChain,
  code: string,
  options: RuntimeUpgradeOptions = {},
): Promise<RuntimeUpgrade> {
  await cryptoWaitReady();
  const alice = new Keyring({ type: "sr25519", ss58Format: 42 }).addFromUri("//Alice");
  const from = (await chain.request<{ specVersion: number }>("state_getRuntimeVersion")).specVersion;
  await chain.request("dev_setStorage", [
    {
      System: { Account: [[[alice.address], { providers: 1, data: { free: "1000000000000000" } }]] },
      Sudo: { Key: alice.address },
    },
  ]);
  // Over HTTP: no subscription, so no metadata fetch of its own racing the disconnect below.
  const api = await ApiPromise.create({ provider: new HttpProvider(chain.httpUrl), noInitWarn: true });
  try {
    const call = (section: string, method: string) => {
      const create = api.tx[section]?.[method];
      if (create === undefined) throw new RuntimeUpgradeError(`the running runtime has no ${section}.${method}`);
      return create;
    };
    const setCode = call("system", options.withoutChecks === true ? "setCodeWithoutChecks" : "setCode")(code);
    const submitted = await call("sudo", "sudo")(setCode).signAndSend(alice, { nonce: -1 });
    const blockHash = await chain.newBlocks(1);
    const block = await api.rpc.chain.getBlock(blockHash);
    const index = block.block.extrinsics.findIndex((extrinsic) => extrinsic.hash.eq(submitted));
    if (index < 0)
      throw new RuntimeUpgradeError(`the sudo(setCode) extrinsic ${submitted.toHex()} is not in block ${blockHash}`);
    const records = [
      ...((await (await api.at(blockHash)).query.system!.events!()) as unknown as Iterable<EventRecord>),
    ];
    const events = records
      .filter((record) => record.phase.isApplyExtrinsic && record.phase.asApplyExtrinsic.toNumber() === index)
      .map((record) => record.event);
    if (!events.some((event) => event.section === "system" && event.method === "CodeUpdated")) {
      throw new RuntimeUpgradeError(`the runtime was not replaced in block ${blockHash}: ${whyNot(api, events)}`);
    }
    const to = (await chain.request<{ specVersion: number }>("state_getRuntimeVersion", [blockHash])).specVersion;
    return { blockHash, from, to };
  } finally {
    await api.disconnect();
  }
}

type ModuleError = Parameters<ApiPromise["registry"]["findMetaError"]>[0];

interface DispatchError {
  isModule: boolean;
  asModule: ModuleError;
  type: string;
}

/** The parts of a `System.Events` record read here (polkadot-js has no typings for Subtensor's pallets). */
interface EventRecord {
  phase: { isApplyExtrinsic: boolean; asApplyExtrinsic: { toNumber(): number } };
  event: { section: string; method: string; data: unknown[] };
}

/** `sudo.Sudid`'s error, by name when it is a pallet's, or the events when there is none. */
function whyNot(api: ApiPromise, events: EventRecord["event"][]): string {
  const sudid = events.find((event) => event.section === "sudo" && event.method === "Sudid");
  const result = sudid?.data[0] as { isErr: boolean; asErr: DispatchError } | undefined;
  if (result?.isErr !== true)
    return events.map((event) => `${event.section}.${event.method}`).join(", ") || "no events";
  const error = result.asErr;
  if (!error.isModule) return error.type;
  const { section, name } = api.registry.findMetaError(error.asModule);
  return `${section}.${name}`;
}
