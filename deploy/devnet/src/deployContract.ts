import type { Abi, Account, Address, Chain, Hex, HttpTransport, PublicClient, WalletClient } from "viem";

export interface DeployContext {
  chain: Chain;
  publicClient: PublicClient<HttpTransport, Chain>;
  walletClient: WalletClient<HttpTransport, Chain, Account>;
}

/**
 * Sends a contract creation and waits for its receipt; resolves the address only once the receipt
 * says success and code is really there, so a deployment never reports an address that holds nothing.
 */
export async function deployContract(
  context: DeployContext,
  artefact: { abi: Abi; bytecode: Hex; args?: readonly unknown[] },
): Promise<Address> {
  const hash = await context.walletClient.deployContract({
    abi: artefact.abi,
    bytecode: artefact.bytecode,
    args: artefact.args ?? [],
  });
  const receipt = await context.publicClient.waitForTransactionReceipt({ hash, timeout: 60_000 });
  if (receipt.status !== "success" || !receipt.contractAddress) {
    throw new Error(`creation transaction ${hash} ${receipt.status}`);
  }
  const code = await context.publicClient.getCode({ address: receipt.contractAddress });
  if (code === undefined || code === "0x") throw new Error(`no code at ${receipt.contractAddress} after ${hash}`);
  return receipt.contractAddress;
}
