import { devnetHolders, subtensorStateAbi } from "@platform/devnet";
import { metagraphAbi, precompileAddresses, ROOT_NETUID } from "@platform/subtensor";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  parseEther,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type HttpTransport,
  type PrivateKeyAccount,
  type PublicClient,
  type TestClient,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { networkTestAccounts } from "./accounts.js";
import { networkRandom, type NetworkRandom } from "./random.js";

export interface NetworkSimulatorOptions {
  /** The native chain's RPC (an anvil: funding and fast batches use its test methods). */
  rpcUrl: string;
  /** `accounts.simulator` of the deployment: the only key that may change the mocks' state. */
  simulatorKey: Hex;
  /** Same seed, same accounts and same sequence of activity. Defaults to `"devnet"`. */
  seed?: string;
  /** How many EVM test accounts take part (`networkTestAccounts(seed, count)`). Defaults to 6. */
  accountCount?: number;
  /** What each test account is topped up to, by a transfer from the simulator, when it runs low. */
  accountFunds?: bigint;
  /** `SubtensorState`; read from the alpha mock's storage slot 0 when omitted. */
  state?: Address;
}

/** A subnet as the simulator acts on it, read from the chain once at start. */
export interface SimulatedSubnet {
  netuid: number;
  /** 0 stable (root), 1 dynamic. */
  mechanism: number;
  /** Hotkeys of the UIDs holding a validator permit: what test accounts stake to. */
  validatorHotkeys: Hex[];
  uidCount: number;
}

export interface NetworkContext {
  chain: Chain;
  publicClient: PublicClient<HttpTransport, Chain>;
  /** JSON-RPC batching client for bulk raw sends. */
  batchClient: PublicClient<HttpTransport, Chain>;
  testClient: TestClient<"anvil", HttpTransport, Chain>;
  simulator: WalletClient<HttpTransport, Chain, Account>;
  /** The test accounts, in `networkTestAccounts` order, each with its wallet. */
  accounts: { account: PrivateKeyAccount; wallet: WalletClient<HttpTransport, Chain, Account> }[];
  /** Substrate-side coldkeys (no EVM key) whose stakes the simulator moves with its admin calls. */
  holderColdkeys: Hex[];
  subnets: SimulatedSubnet[];
  state: Address;
  random: NetworkRandom;
  accountFunds: bigint;
  /** Steps run so far. */
  steps: number;
}

const DEFAULT_ACCOUNT_FUNDS = parseEther("1000");

export async function createNetworkContext(options: NetworkSimulatorOptions): Promise<NetworkContext> {
  const seed = options.seed ?? "devnet";
  const probe = createPublicClient({ transport: http(options.rpcUrl) });
  const chain = defineChain({
    id: await probe.getChainId(),
    name: "native",
    nativeCurrency: { name: "TAO", symbol: "TAO", decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  });
  const transport = http(options.rpcUrl, { timeout: 15_000, retryCount: 2 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 100 });
  const wallet = (account: Account) => createWalletClient({ chain, transport, account, pollingInterval: 100 });
  const state = options.state ?? (await readStateAddress(publicClient));
  return {
    chain,
    publicClient,
    batchClient: createPublicClient({ chain, transport: http(options.rpcUrl, { timeout: 60_000, batch: { batchSize: 100 } }) }),
    testClient: createTestClient({ chain, transport, mode: "anvil" }),
    simulator: wallet(privateKeyToAccount(options.simulatorKey)),
    accounts: networkTestAccounts(seed, options.accountCount ?? 6).map((account) => ({ account, wallet: wallet(account) })),
    holderColdkeys: devnetHolders.map((holder) => holder.coldkey),
    subnets: await readSubnets(publicClient, state),
    state,
    random: networkRandom(seed),
    accountFunds: options.accountFunds ?? DEFAULT_ACCOUNT_FUNDS,
    steps: 0,
  };
}

/** Every precompile mock keeps the state contract's address in slot 0 (deploy/devnet precompileMocks). */
async function readStateAddress(client: PublicClient): Promise<Address> {
  const slot = await client.getStorageAt({ address: precompileAddresses.alpha, slot: "0x0" });
  if (slot === undefined || BigInt(slot) === 0n) {
    throw new Error(`no Subtensor precompile mock at ${precompileAddresses.alpha}: deploy the devnet first`);
  }
  return getAddress(`0x${slot.slice(-40)}`);
}

async function readSubnets(client: PublicClient, state: Address): Promise<SimulatedSubnet[]> {
  const netuids = await client.readContract({ address: state, abi: subtensorStateAbi, functionName: "subnetList" });
  const subnets: SimulatedSubnet[] = [];
  for (const netuid of netuids) {
    const pool = await client.readContract({ address: state, abi: subtensorStateAbi, functionName: "pool", args: [netuid] });
    const uidCount = await client.readContract({
      address: precompileAddresses.metagraph,
      abi: metagraphAbi,
      functionName: "getUidCount",
      args: [netuid],
    });
    const validatorHotkeys: Hex[] = [];
    for (let uid = 0; uid < uidCount; uid++) {
      const metagraph = { address: precompileAddresses.metagraph, abi: metagraphAbi, args: [netuid, uid] } as const;
      if (await client.readContract({ ...metagraph, functionName: "getValidatorStatus" })) {
        validatorHotkeys.push(await client.readContract({ ...metagraph, functionName: "getHotkey" }));
      }
    }
    subnets.push({ netuid, mechanism: netuid === ROOT_NETUID ? 0 : pool.mechanism, validatorHotkeys, uidCount });
  }
  return subnets;
}
