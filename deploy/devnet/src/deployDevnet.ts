import type { ChainRole } from "@platform/chain";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  http,
  parseEther,
  type Account,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { DeployContext } from "./deployContract.js";
import { deploySteps, type DeployStep, type DevnetContracts } from "./deploySteps.js";

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

export type DevnetDeployment = Record<string, DevnetChainDeployment>;

/** Enough for every deployment step many times over; anvil balances cost nothing. */
const DEPLOYER_FUNDS = parseEther("1000");

/**
 * Deploys the devnet contracts to each anvil chain, chains in parallel and steps in order within a
 * chain. The deployer is a key generated for this run only and held in memory: nothing in the
 * repository or the logs can sign for it, and it is funded through `anvil_setBalance`, so the devnet
 * does not depend on anvil's well-known dev accounts.
 */
export async function deployDevnet(options: { chains: readonly DevnetChainTarget[] }): Promise<DevnetDeployment> {
  const names = options.chains.map((chain) => chain.name);
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined) throw new Error(`deployDevnet: chain name ${repeated} is given twice`);

  const deployer = privateKeyToAccount(generatePrivateKey());
  const deployed = await Promise.all(options.chains.map((chain) => deployChain(chain, deployer)));
  return Object.fromEntries(options.chains.map((chain, index) => [chain.name, deployed[index]!]));
}

async function deployChain(target: DevnetChainTarget, deployer: Account): Promise<DevnetChainDeployment> {
  const chain = defineChain({
    id: target.chainId,
    name: target.name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [target.rpcUrl] } },
  });
  // A local node answers at once; viem's 4 s default polling would make every receipt wait seconds.
  const transport = http(target.rpcUrl, { timeout: 10_000, retryCount: 2 });
  const context: DeployContext = {
    chain,
    publicClient: createPublicClient({ chain, transport, pollingInterval: 100 }),
    walletClient: createWalletClient({ chain, transport, account: deployer, pollingInterval: 100 }),
  };
  const where = `${target.name} (chain ${target.chainId}, ${target.rpcUrl})`;

  const actualChainId = await context.publicClient.getChainId();
  if (actualChainId !== target.chainId) {
    throw new Error(`deployDevnet: ${where} answers as chain ${actualChainId}`);
  }
  await createTestClient({ chain, transport, mode: "anvil" }).setBalance({
    address: deployer.address,
    value: DEPLOYER_FUNDS,
  });

  const contracts: Partial<DevnetContracts> = {};
  for (const step of deploySteps.filter((candidate) => appliesTo(candidate, target.roles ?? []))) {
    try {
      contracts[step.contract] = await step.deploy(context);
    } catch (error) {
      throw new Error(`deployDevnet: ${step.contract} on ${where} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  return { chainId: target.chainId, rpcUrl: target.rpcUrl, contracts: requireEveryChainContracts(contracts) };
}

function appliesTo(step: DeployStep, roles: readonly ChainRole[]): boolean {
  return step.roles === "every" || step.roles.some((role) => roles.includes(role));
}

/** The contracts every chain gets must all be there; role-specific ones stay optional in the type. */
function requireEveryChainContracts(contracts: Partial<DevnetContracts>): DevnetContracts {
  const { multicall3 } = contracts;
  if (multicall3 === undefined) throw new Error("deployDevnet: multicall3 was not deployed");
  return { ...contracts, multicall3 };
}
