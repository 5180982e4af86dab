import {
  blockEvents,
  connectNativeChain,
  eventsOfExtrinsic,
  extrinsicFailure,
  NATIVE_DEV_ACCOUNT_NAMES,
  type NativeChain,
  type NativeDemoAccount,
  nativeKeyring,
} from "@platform/devnet";
import { createLogger, type Logger } from "@platform/log";
import type { NetworkRandom } from "../random.js";
import {
  NATIVE_SIMULATOR_KINDS,
  type NativeAction,
  type NativeActor,
  type NativeSimulatorKind,
  planTick,
} from "./nativeActions.js";
import { readNativeState } from "./nativeState.js";

export interface NativeSimulatorOptions {
  /** WebSocket JSON-RPC of the Subtensor node. */
  rpcUrl: string;
  /** Aborting it stops the simulator; `done` resolves once it has. */
  signal: AbortSignal;
  /**
   * The seed's accounts (`seedNativeNetwork().accounts`): its coldkeys with a dev URI sign. Absent:
   * the six dev accounts `//Alice` … `//Ferdie`, which the seed funds.
   */
  seededAccounts?: readonly NativeDemoAccount[];
  /** Same generator state, same choices (`networkRandom(seed)`). */
  random: NetworkRandom;
  log?: Logger;
  /** Chance per block of a `burnedRegister` with a new hotkey. Default 0.15. */
  registerChance?: number;
  /** Called after each block's extrinsics were sent, e.g. for a test to build the next block. */
  onTick?: (tick: NativeTick) => void;
}

export interface NativeTick {
  /** The head the tick planned at; its extrinsics go into a later block. */
  blockNumber: number;
  submitted: { kind: NativeSimulatorKind; label: string; extrinsicHash: string }[];
  /** Calls the node refused outright (bad nonce, cannot pay, …). */
  refused: { kind: NativeSimulatorKind; label: string; reason: string }[];
  /** Why the tick stopped early (e.g. the node did not answer a read), when it did. */
  error?: string;
}

/** Sent: accepted by the node; succeeded / failed: as the block's events say; failed also counts refused and dropped. */
export type NativeSimulatorCounts = Record<NativeSimulatorKind, { sent: number; succeeded: number; failed: number }>;

export interface RunningNativeSimulator {
  /** Resolves once the simulator has stopped and disconnected; never rejects. */
  done: Promise<void>;
  counts(): NativeSimulatorCounts;
}

/** Sent extrinsics not seen in this many blocks are counted as dropped by the pool. */
const DROP_AFTER_BLOCKS = 10;

interface Pending {
  kind: NativeSimulatorKind;
  label: string;
  sentAt: number;
}

/** The mutable state of a running simulator. */
interface SimulatorRun {
  chain: NativeChain;
  options: NativeSimulatorOptions;
  log: Logger;
  actors: NativeActor[];
  pending: Map<string, Pending>;
  counts: NativeSimulatorCounts;
  scanned: number;
  busy: boolean;
}

/**
 * Keeps native activity going: at each new head it sends a few random extrinsics from the dev
 * accounts (transfers, stake added, removed and moved, now and then a neuron with a new hotkey),
 * never more than their free balance allows, and checks in later blocks how each one went. Failures
 * are logged and counted; nothing the chain does stops it, only the signal.
 */
export async function startNativeSimulator(options: NativeSimulatorOptions): Promise<RunningNativeSimulator> {
  const log = (options.log ?? createLogger({ service: "simulator", level: "silent" })).child({
    component: "native-simulator",
  });
  const chain = await connectNativeChain(options.rpcUrl);
  const run: SimulatorRun = {
    chain,
    options,
    log,
    actors: await actors(options.seededAccounts),
    pending: new Map(),
    counts: emptyCounts(),
    scanned: 0,
    busy: false,
  };
  run.scanned = (await chain.api.rpc.chain.getHeader()).number.toNumber();
  let current: Promise<void> = Promise.resolve();
  const unsubscribe = await chain.api.rpc.chain.subscribeNewHeads((header) => {
    if (run.busy || options.signal.aborted) return;
    run.busy = true;
    current = onHead(run, header.number.toNumber()).finally(() => (run.busy = false));
  });
  log.info({ actors: run.actors.map((actor) => actor.name) }, "native simulator started");
  const done = new Promise<void>((resolve) => {
    const stop = async () => {
      unsubscribe();
      await current;
      await chain.close().catch(() => undefined);
      log.info({ counts: run.counts }, "native simulator stopped");
      resolve();
    };
    if (options.signal.aborted) void stop();
    else options.signal.addEventListener("abort", () => void stop(), { once: true });
  });
  return { done, counts: () => structuredClone(run.counts) };
}

async function actors(seeded: readonly NativeDemoAccount[] | undefined): Promise<NativeActor[]> {
  const keyring = await nativeKeyring();
  const uris =
    seeded === undefined
      ? NATIVE_DEV_ACCOUNT_NAMES.map((name) => ({ name: name as string, devUri: `//${name}` }))
      : seeded.filter((account) => account.role === "coldkey" && account.devUri !== undefined);
  return uris.map(({ name, devUri }) => ({ name, pair: keyring.addFromUri(devUri!) }));
}

function emptyCounts(): NativeSimulatorCounts {
  return Object.fromEntries(
    NATIVE_SIMULATOR_KINDS.map((kind) => [kind, { sent: 0, succeeded: 0, failed: 0 }]),
  ) as NativeSimulatorCounts;
}

/** One head: settle what earlier ticks sent, then send this block's activity. Never throws. */
async function onHead(run: SimulatorRun, head: number): Promise<void> {
  const tick: NativeTick = { blockNumber: head, submitted: [], refused: [] };
  try {
    await settle(run, head);
    await sendTick(run, tick);
    run.log.debug({ block: head, sent: tick.submitted.length, refused: tick.refused.length }, "native tick");
  } catch (error) {
    tick.error = error instanceof Error ? error.message : String(error);
    run.log.warn({ error, block: head }, "native simulator tick failed");
  }
  try {
    run.options.onTick?.(tick);
  } catch (error) {
    run.log.warn({ error }, "native simulator onTick threw");
  }
}

async function sendTick(run: SimulatorRun, tick: NativeTick): Promise<void> {
  const { api } = run.chain;
  const state = await readNativeState(
    api,
    run.actors.map((actor) => actor.pair.address),
  );
  const actions = planTick(
    { api, random: run.options.random, actors: run.actors, registerChance: run.options.registerChance ?? 0.15 },
    state,
  );
  const nonces = new Map<string, number>();
  for (const action of actions) await submit(run, action, nonces, tick);
}

async function submit(
  run: SimulatorRun,
  action: NativeAction,
  nonces: Map<string, number>,
  tick: NativeTick,
): Promise<void> {
  const { api } = run.chain;
  const address = action.signer.address;
  try {
    const nonce = nonces.get(address) ?? (await api.rpc.system.accountNextIndex(address)).toNumber();
    const signed = await action.tx.signAsync(action.signer, { nonce });
    await api.rpc.author.submitExtrinsic(signed);
    nonces.set(address, nonce + 1);
    const extrinsicHash = signed.hash.toHex();
    run.pending.set(extrinsicHash, { kind: action.kind, label: action.label, sentAt: tick.blockNumber });
    run.counts[action.kind].sent++;
    tick.submitted.push({ kind: action.kind, label: action.label, extrinsicHash });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    run.counts[action.kind].failed++;
    tick.refused.push({ kind: action.kind, label: action.label, reason });
    run.log.warn({ kind: action.kind, label: action.label, reason }, "native call refused");
  }
}

/** Looks up pending extrinsics in every block since the last scan and counts how they went. */
async function settle(run: SimulatorRun, head: number): Promise<void> {
  for (; run.scanned < head; ) {
    run.scanned++;
    if (run.pending.size > 0) await settleBlock(run, run.scanned);
  }
  for (const [hash, pending] of run.pending) {
    if (head - pending.sentAt <= DROP_AFTER_BLOCKS) continue;
    run.pending.delete(hash);
    run.counts[pending.kind].failed++;
    run.log.warn({ kind: pending.kind, label: pending.label }, "native call dropped by the pool");
  }
}

async function settleBlock(run: SimulatorRun, blockNumber: number): Promise<void> {
  const { api } = run.chain;
  const blockHash = (await api.rpc.chain.getBlockHash(blockNumber)).toHex();
  const block = await api.rpc.chain.getBlock(blockHash);
  const records = await blockEvents(api, blockHash);
  block.block.extrinsics.forEach((extrinsic, index) => {
    const pending = run.pending.get(extrinsic.hash.toHex());
    if (pending === undefined) return;
    run.pending.delete(extrinsic.hash.toHex());
    const failure = extrinsicFailure(api, eventsOfExtrinsic(records, index));
    run.counts[pending.kind][failure === undefined ? "succeeded" : "failed"]++;
    if (failure !== undefined)
      run.log.warn({ kind: pending.kind, label: pending.label, block: blockNumber, failure }, "native call failed");
  });
}
