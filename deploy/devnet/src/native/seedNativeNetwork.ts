import { connectNativeChain, NATIVE_DEV_ACCOUNT_NAMES, nativeKeyring, nativeStorage } from "./nativeChain.js";
import { GENESIS_SUBNET, SEED_SUBNETS, type SeedPool, seedKeys } from "./seedAccounts.js";
import { completeSharePools, fundDevAccounts, writePoolHistory } from "./seedHistory.js";
import {
  configureSubnets,
  moveStake,
  registerNeurons,
  registerSubnets,
  type SeedRun,
  stakeAndDelegate,
} from "./seedSteps.js";
import {
  NATIVE_ACTIVITY_KINDS,
  type NativeActivity,
  type NativeActivityKind,
  type NativeSeededSubnet,
  type SeededNativeNetwork,
} from "./seedTypes.js";

/**
 * The demo tempo: at the stack's 2 s blocks a subnet steps once a minute (Finney's 360 at 12 s is
 * once in 72 minutes, longer than anyone watches a demo); the runtime staggers the subnets by netuid,
 * one block apart.
 */
export const DEMO_TEMPO = 29;

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
  /** Every subnet's tempo (root's too). Default DEMO_TEMPO. */
  tempo?: number;
}

/**
 * Gives a fresh raonet chain (runtime spec 218) a small Finney-shaped market and the native activity
 * an indexer has to read, in five blocks. Written directly (seedHistory.ts): the dev accounts' funds
 * and sudo, genesis' missing share-pool total, and the pools' depth after the subnets are registered. Everything else is real signed
 * extrinsics: three dynamic subnets with identities, each with three validators (self-staked,
 * delegates, nominated by other coldkeys), the owner's child hotkey and three miners; two neurons on
 * genesis' subnet 1; transfers (to a new account, to an EVM key's mapped account, to four
 * nominators); an EIP-1559 transfer through `ethereum.transact`; validators' identities; stake
 * removed, moved (to another hotkey, to another subnet) and added. Every extrinsic is checked to have
 * succeeded; the first that did not throws.
 */
export async function seedNativeNetwork(options: SeedNativeNetworkOptions): Promise<SeededNativeNetwork> {
  const chain = await connectNativeChain(options.rpcUrl);
  try {
    const keys = seedKeys(await nativeKeyring());
    const producer = { buildBlock: options.buildBlock, timeoutMs: options.stepTimeoutMs ?? 60_000 };
    const genesisSubnet = await describeGenesisSubnet(chain.api);
    const run: SeedRun = {
      chain,
      producer,
      keys,
      tempo: options.tempo ?? DEMO_TEMPO,
      subnets: [],
      genesisSubnet,
      activity: [],
      blockNumbers: [],
    };
    const devAddresses = NATIVE_DEV_ACCOUNT_NAMES.map((name) => keys.dev.get(name)!.address);
    await fundDevAccounts(chain, devAddresses, keys.dev.get("Alice")!.address);
    await completeSharePools(chain);
    await registerSubnets(run);
    await writePoolHistory(chain, poolsOf(run));
    await configureSubnets(run);
    await registerNeurons(run);
    await stakeAndDelegate(run);
    await moveStake(run);
    return describeRun(run);
  } finally {
    await chain.close();
  }
}

function poolsOf(run: SeedRun): Map<number, SeedPool> {
  return new Map([
    [GENESIS_SUBNET.netuid, GENESIS_SUBNET.pool],
    ...SEED_SUBNETS.map((plan, index) => [run.subnets[index]!.netuid, plan.pool] as const),
  ]);
}

async function describeGenesisSubnet(api: SeedRun["chain"]["api"]): Promise<NativeSeededSubnet> {
  const read = async (item: string) =>
    (await nativeStorage(api, "subtensorModule", item)(GENESIS_SUBNET.netuid)).toString();
  const [owner, ownerHotkey] = await Promise.all([read("subnetOwner"), read("subnetOwnerHotkey")]);
  return {
    netuid: GENESIS_SUBNET.netuid,
    name: GENESIS_SUBNET.name,
    owner,
    ownerHotkey,
    neurons: [],
    validators: [],
    miners: [],
  };
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
    genesisSubnet: run.genesisSubnet,
    activity,
    tempo: run.tempo,
    blocks: { first: Math.min(...run.blockNumbers), last: Math.max(...run.blockNumbers) },
  };
}
