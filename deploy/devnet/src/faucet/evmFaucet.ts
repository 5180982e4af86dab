import { PlatformError } from "@platform/errors/base";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  http,
  parseEther,
  parseUnits,
} from "viem";
import { testTokenAbi } from "../generated/index.js";

/** An anvil chain of the devnet, as the stack's descriptor names it. */
export interface FaucetEvmChain {
  name: string;
  chainId: number;
  rpcUrl: string;
  /** Test tokens by symbol. */
  tokens: Record<string, string>;
}

/** Amounts as decimal strings in whole units ("10", "0.5"). */
export interface EvmGrant {
  eth?: string;
  usdc?: string;
}

export interface EvmGrantResult {
  chain: string;
  chainId: number;
  eth?: { addedWei: bigint; balanceWei: bigint };
  usdc?: { token: Address; decimals: number; added: bigint; balance: bigint };
}

/**
 * What the faucet could not do: `FAUCET_REQUEST_REFUSED` for a request the devnet cannot serve as
 * asked (a chain it does not have, TAO without a native network: the caller's to change),
 * `FAUCET_FAILED` when a chain refused what was sent.
 */
export class FaucetError extends PlatformError {
  constructor(code: "FAUCET_REQUEST_REFUSED" | "FAUCET_FAILED", message: string, options?: ErrorOptions) {
    super(message, { code, retryable: false, cause: options?.cause });
  }
}

/** Gas for the minter's mint when anvil has nothing left on it (the deployer pays no one else). */
const MINTER_GAS_FLOOR = parseEther("0.1");

/**
 * Gives `address` ETH (`anvil_setBalance`: its balance plus the amount) and the test USDC (minted
 * by the token's own minter, the deployer, whose key the stack keeps in memory only: anvil's
 * `anvil_impersonateAccount` sends the mint as it). The new balances, read back.
 */
export async function fundEvmAccount(
  chain: FaucetEvmChain,
  address: Address,
  grant: EvmGrant,
): Promise<EvmGrantResult> {
  const definition = defineChain({
    id: chain.chainId,
    name: chain.name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  });
  const transport = http(chain.rpcUrl, { timeout: 10_000, retryCount: 1 });
  const publicClient = createPublicClient({ chain: definition, transport, pollingInterval: 100 });
  const testClient = createTestClient({ chain: definition, transport, mode: "anvil" });
  const result: EvmGrantResult = { chain: chain.name, chainId: chain.chainId };

  if (grant.eth !== undefined) {
    const addedWei = parseEther(grant.eth);
    const before = await publicClient.getBalance({ address });
    await testClient.setBalance({ address, value: before + addedWei });
    result.eth = { addedWei, balanceWei: await publicClient.getBalance({ address }) };
  }

  if (grant.usdc !== undefined) {
    const token = chain.tokens.USDC as Address | undefined;
    if (token === undefined)
      throw new FaucetError("FAUCET_REQUEST_REFUSED", `chain ${chain.name} (${chain.chainId}) has no test USDC`);
    const [minter, decimals] = await Promise.all([
      publicClient.readContract({ address: token, abi: testTokenAbi, functionName: "minter" }),
      publicClient.readContract({ address: token, abi: testTokenAbi, functionName: "decimals" }),
    ]);
    const added = parseUnits(grant.usdc, decimals);
    const minterFunds = await publicClient.getBalance({ address: minter });
    if (minterFunds < MINTER_GAS_FLOOR) await testClient.setBalance({ address: minter, value: MINTER_GAS_FLOOR });
    await testClient.impersonateAccount({ address: minter });
    try {
      const wallet = createWalletClient({ chain: definition, transport, account: minter, pollingInterval: 100 });
      const hash = await wallet.writeContract({
        address: token,
        abi: testTokenAbi,
        functionName: "mint",
        args: [address, added],
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
      if (receipt.status !== "success")
        throw new FaucetError("FAUCET_FAILED", `the mint of USDC on ${chain.name} (transaction ${hash}) reverted`);
    } finally {
      await testClient.stopImpersonatingAccount({ address: minter });
    }
    const balance = await publicClient.readContract({
      address: token,
      abi: testTokenAbi,
      functionName: "balanceOf",
      args: [address],
    });
    result.usdc = { token, decimals, added, balance };
  }
  return result;
}
