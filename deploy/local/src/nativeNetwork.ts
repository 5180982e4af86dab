import { join } from "node:path";
import type { SubstrateNetworkInput } from "@platform/chain";
import { nativeEvmChainId, startSeededSubtensor } from "@platform/devnet";
import type { ManagedProcess } from "@platform/testing";
import type { SubstrateDescriptor } from "./descriptor.js";

export interface StartNativeNetworkOptions {
  port: number;
  /**
   * A block every this many ms; the seed builds its own blocks meanwhile, so it need not wait for the
   * timer. 0: no timer, blocks only when asked (`dev_newBlock`), for tests that drive the chain
   * themselves (a reorganisation cannot race a timer's block).
   */
  blockTimeMs: number;
  logs: string;
  detached: boolean;
  track: (name: string, handle: ManagedProcess, logFile: string, stop: () => Promise<void>) => void;
}

/**
 * The block time the chains file states when blocks come only on demand: it must be positive, and
 * only sets expectations (nothing of the native source waits on it); Subtensor's own is 12 s.
 */
const ON_DEMAND_NOMINAL_BLOCK_TIME_MS = 12_000;

export interface NativeNetwork {
  /** The chains file's `substrate` section. */
  network: SubstrateNetworkInput;
  descriptor: SubstrateDescriptor;
}

/**
 * The native network of the devnet: the real Subtensor runtime (the committed chain spec, checked)
 * under chopsticks, building a block on a timer, then seeded through real signed extrinsics
 * (subnets with identities and neurons, transfers, stake added, removed and moved, an EVM
 * transaction) so that it has activity from its first minute.
 */
export async function startNativeNetwork(options: StartNativeNetworkOptions): Promise<NativeNetwork> {
  const logFile = join(options.logs, "subtensor.log");
  // The timer starts once the seed has run: its one dev_setStorage then lands on block 1, the block
  // an indexer counts in full (state written without events is otherwise invisible to one that
  // keeps counts from events), and the seed's blocks are its own.
  // The seed's blocks are built by the runtime once per chain spec and seed, then replayed
  // (startSeededSubtensor): the same blocks, hashes and state, in a second instead of a minute.
  const { node, seeded } = await startSeededSubtensor({
    port: options.port,
    blockTimeMs: options.blockTimeMs,
    timerPaused: true,
    logFile,
    detached: options.detached,
  });
  options.track("subtensor", node.process, logFile, () => node.stop());
  node.startTimer();
  const [chainId, version] = await Promise.all([
    nativeEvmChainId(node.rpcUrl),
    node.request<{ specVersion: number }>("state_getRuntimeVersion"),
  ]);
  const network: SubstrateNetworkInput = {
    name: "bittensor",
    chainId,
    rpcUrl: node.rpcUrl,
    blockTimeMs: options.blockTimeMs > 0 ? options.blockTimeMs : ON_DEMAND_NOMINAL_BLOCK_TIME_MS,
    // Chopsticks finalizes every block at once; the depth stands in for the network's finality lag.
    finality: { safeDepth: 1, finalizedDepth: 3 },
    ss58Prefix: 42,
    rpc: { timeoutMs: 10_000, retryCount: 2, retryDelayMs: 250 },
  };
  return {
    network,
    descriptor: {
      name: network.name,
      chainId,
      rpcUrl: node.rpcUrl,
      httpUrl: node.httpUrl,
      blockTimeMs: options.blockTimeMs,
      specVersion: version.specVersion,
      demoAccounts: seeded.accounts
        .filter((account) => account.role !== "hotkey")
        .map((account) => ({
          name: account.name,
          role: account.role,
          ss58: account.ss58,
          publicKey: account.publicKey,
          ...(account.evmH160 === undefined ? {} : { evmH160: account.evmH160 }),
        })),
      netuids: seeded.netuids,
    },
  };
}
