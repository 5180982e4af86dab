import type { ChainRole } from "@platform/chain";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type LocalAccount,
  parseEther,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import {
  type ChainStepContext,
  type DeployedChain,
  type DeployStep,
  type DevnetContracts,
  deploySteps,
  linkSteps,
} from "./deploySteps.js";

export interface DevnetChainTarget {
  /** The key of this chain in the result (and in `.local/stack.json`). */
  name: string;
  chainId: number;
  rpcUrl: string;
  /** Selects role-specific contracts; a chain without roles gets only the contracts every chain has. */
  roles?: readonly ChainRole[];
}

export interface DevnetChainDeployment {
  chainId: number;
  rpcUrl: string;
  contracts: DevnetContracts;
}

/**
 * An account generated for one deployment run. `privateKey` is a non-enumerable property: it is there
 * for the caller to read, but `JSON.stringify`, `console.log` and object spread leave it out, so a
 * descriptor or log line built from the deployment cannot carry it by accident.
 */
export interface DevnetAccount {
  readonly address: Address;
  readonly privateKey: Hex;
}

/**
 * The run's accounts, the same on every chain. Their keys exist only in this object: the caller keeps
 * them in memory, or in a 0600 file under the stack's secrets folder if another process (the
 * simulator) must sign with them; they are never written anywhere else or logged.
 */
export interface DevnetAccounts {
  /** Owner of every FullSettler and minter of every test token. */
  deployer: DevnetAccount;
  /** The FullSettlers' oracle: the only account that can `settle`. */
  oracle: DevnetAccount;
  /** Holds every test token (and native coin) on intent chains, with unlimited allowance to the FullSettler. */
  filler: DevnetAccount;
  /** The simulator's price updater: the only account that may submit price-feed rounds; funded for gas on the feed's chain (`devnetPriceUpdaterFunds`). */
  simulator: DevnetAccount;
}

export interface DevnetDeployment {
  /** Keyed by `DevnetChainTarget.name`, in the order given. */
  chains: Record<string, DevnetChainDeployment>;
  accounts: DevnetAccounts;
}

/** Enough for every deployment step many times over; anvil balances cost nothing. */
const DEPLOYER_FUNDS = parseEther("1000");

/**
 * Deploys the devnet contracts to each anvil chain, chains in parallel and steps in order within a
 * chain, then runs the cross-chain link steps (FullSettler peers). Every account is a key generated
 * for this run and held in memory: nothing in the repository or the logs can sign for it, and accounts
 * are funded through `anvil_setBalance`, so the devnet does not depend on anvil's well-known dev accounts.
 */
export async function deployDevnet(options: { chains: readonly DevnetChainTarget[] }): Promise<DevnetDeployment> {
  const names = options.chains.map((chain) => chain.name);
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined) throw new Error(`deployDevnet: chain name ${repeated} is given twice`);

  const keys = {
    deployer: generatePrivateKey(),
    oracle: generatePrivateKey(),
    filler: generatePrivateKey(),
    simulator: generatePrivateKey(),
  };
  const signers = {
    deployer: privateKeyToAccount(keys.deployer),
    oracle: privateKeyToAccount(keys.oracle),
    filler: privateKeyToAccount(keys.filler),
    simulator: privateKeyToAccount(keys.simulator),
  };
  const deployed = await Promise.all(options.chains.map((chain) => deployChain(chain, signers)));
  for (const step of linkSteps) {
    try {
      await step.run(deployed);
    } catch (error) {
      throw new Error(`deployDevnet: ${step.name} failed: ${(error as Error).message}`, { cause: error });
    }
  }
  return {
    chains: Object.fromEntries(
      options.chains.map((target, index) => [
        target.name,
        {
          chainId: target.chainId,
          rpcUrl: target.rpcUrl,
          contracts: deployed[index]!.contracts,
        },
      ]),
    ),
    accounts: {
      deployer: devnetAccount(keys.deployer),
      oracle: devnetAccount(keys.oracle),
      filler: devnetAccount(keys.filler),
      simulator: devnetAccount(keys.simulator),
    },
  };
}

async function deployChain(
  target: DevnetChainTarget,
  signers: { deployer: LocalAccount; oracle: LocalAccount; filler: LocalAccount; simulator: LocalAccount },
): Promise<DeployedChain> {
  const chain = defineChain({
    id: target.chainId,
    name: target.name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [target.rpcUrl] } },
  });
  // A local node answers at once; viem's 4 s default polling would make every receipt wait seconds.
  const transport = http(target.rpcUrl, { timeout: 10_000, retryCount: 2 });
  const context: ChainStepContext = {
    chain,
    publicClient: createPublicClient({ chain, transport, pollingInterval: 100 }),
    walletClient: createWalletClient({ chain, transport, account: signers.deployer, pollingInterval: 100 }),
    testClient: createTestClient({ chain, transport, mode: "anvil" }),
    oracle: signers.oracle.address,
    filler: createWalletClient({ chain, transport, account: signers.filler, pollingInterval: 100 }),
    simulator: createWalletClient({ chain, transport, account: signers.simulator, pollingInterval: 100 }),
    contracts: {},
  };
  const where = `${target.name} (chain ${target.chainId}, ${target.rpcUrl})`;

  const actualChainId = await context.publicClient.getChainId();
  if (actualChainId !== target.chainId) {
    throw new Error(`deployDevnet: ${where} answers as chain ${actualChainId}`);
  }
  await context.testClient.setBalance({ address: signers.deployer.address, value: DEPLOYER_FUNDS });

  for (const step of deploySteps.filter((candidate) => appliesTo(candidate, target.roles ?? []))) {
    try {
      Object.assign(context.contracts, await step.run(context));
    } catch (error) {
      throw new Error(`deployDevnet: ${step.name} on ${where} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  return {
    name: target.name,
    chainId: target.chainId,
    context,
    contracts: requireEveryChainContracts(context.contracts),
  };
}

function appliesTo(step: DeployStep, roles: readonly ChainRole[]): boolean {
  return step.roles === "every" || step.roles.some((role) => roles.includes(role));
}

/** The contracts every chain gets must all be there; role-specific ones stay optional in the type. */
function requireEveryChainContracts(contracts: Partial<DevnetContracts>): DevnetContracts {
  const { multicall3, walletFactory } = contracts;
  if (multicall3 === undefined) throw new Error("deployDevnet: multicall3 was not deployed");
  if (walletFactory === undefined) throw new Error("deployDevnet: walletFactory was not deployed");
  return { ...contracts, multicall3, walletFactory };
}

function devnetAccount(privateKey: Hex): DevnetAccount {
  const account = { address: privateKeyToAccount(privateKey).address };
  Object.defineProperty(account, "privateKey", { value: privateKey, enumerable: false, writable: false });
  return account as DevnetAccount;
}
