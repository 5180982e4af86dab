import { connectNativeChain, nativeKeyring } from "./nativeChain.js";
import { seedKeys } from "./seedAccounts.js";
import { fundDevAccounts, moveStake, registerNeurons, registerSubnets, type SeedRun } from "./seedSteps.js";
import {
  NATIVE_ACTIVITY_KINDS,
  type NativeActivity,
  type NativeActivityKind,
  type SeededNativeNetwork,
} from "./seedTypes.js";

export interface SeedNativeNetworkOptions {
  /** WebSocket JSON-RPC of a Subtensor node with the dev RPC methods (chopsticks). */
  rpcUrl: string;
  /**
   * Builds one block with what waits in the pool (tests: `() => node.newBlocks(1)`). Absent: the node
   * builds blocks on its own timer (the stack), and each step waits for them.
   */
  buildBlock?: (() => Promise<unknown>) | undefined;
  /** How long one step may wait for its block when the node builds them. Default 60 s. */
  stepTimeoutMs?: number;
}

/**
 * Gives a fresh raonet chain (runtime spec 218) the native activity an indexer has to read: funds the
 * dev accounts, sets the issuances to match and takes sudo (dev_setStorage, the only state written
 * directly), then only real extrinsics, three blocks of them: three dynamic subnets with
 * identities, six neurons, balance transfers (one to a new account, one to an EVM key's mapped account), an EIP-1559 transfer through
 * `ethereum.transact`, and stake removed, moved (to another hotkey, to another subnet) and added on
 * two subnets. Every extrinsic is checked to have succeeded; the first that did not throws.
 */
export async function seedNativeNetwork(options: SeedNativeNetworkOptions): Promise<SeededNativeNetwork> {
  const chain = await connectNativeChain(options.rpcUrl);
  try {
    const keys = seedKeys(await nativeKeyring());
    const producer = { buildBlock: options.buildBlock, timeoutMs: options.stepTimeoutMs ?? 60_000 };
    const run: SeedRun = { chain, producer, keys, subnets: [], activity: [], blockNumbers: [] };
    await fundDevAccounts(run);
    await registerSubnets(run);
    await registerNeurons(run);
    await moveStake(run);
    return describeRun(run);
  } finally {
    await chain.close();
  }
}

function describeRun(run: SeedRun): SeededNativeNetwork {
  const activity = Object.fromEntries(NATIVE_ACTIVITY_KINDS.map((kind) => [kind, [] as NativeActivity[]])) as Record<
    NativeActivityKind,
    NativeActivity[]
  >;
  for (const entry of run.activity) activity[entry.kind].push(entry);
  return {
    accounts: run.keys.accounts,
    netuids: run.subnets.map((subnet) => subnet.netuid),
    subnets: run.subnets,
    activity,
    blocks: { first: Math.min(...run.blockNumbers), last: Math.max(...run.blockNumbers) },
  };
}
