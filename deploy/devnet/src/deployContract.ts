import {
  type Abi,
  type Account,
  type Address,
  type Chain,
  getAddress,
  type Hash,
  type Hex,
  type HttpTransport,
  type PublicClient,
  type WalletClient,
} from "viem";

export interface DeployContext {
  chain: Chain;
  publicClient: PublicClient<HttpTransport, Chain>;
  walletClient: WalletClient<HttpTransport, Chain, Account>;
}

export interface ContractArtefact {
  abi: Abi;
  bytecode: Hex;
  args?: readonly unknown[];
}

/**
 * Sends a contract creation and waits for its receipt; resolves the address only once the receipt
 * says success and code is really there, so a deployment never reports an address that holds nothing.
 */
export async function deployContract(context: DeployContext, artefact: ContractArtefact): Promise<Address> {
  return awaitDeployment(context, await sendDeployment(context, artefact));
}

/**
 * Sends a contract creation without waiting for it to be mined. Independent creations sent one after
 * another land in one block on an interval-mining chain, instead of one block each; the node hands out
 * nonces from its pending pool, so consecutive sends do not collide.
 */
export async function sendDeployment(context: DeployContext, artefact: ContractArtefact): Promise<Hash> {
  return context.walletClient.deployContract({
    abi: artefact.abi,
    bytecode: artefact.bytecode,
    args: artefact.args ?? [],
  });
}

/** Waits for a creation sent by `sendDeployment` and checks it as `deployContract` does. */
export async function awaitDeployment(context: DeployContext, hash: Hash): Promise<Address> {
  const receipt = await context.publicClient.waitForTransactionReceipt({ hash, timeout: 60_000 });
  if (receipt.status !== "success" || !receipt.contractAddress) {
    throw new Error(`creation transaction ${hash} ${receipt.status}`);
  }
  // Receipts carry the address in lower case; the checksummed form is what every consumer compares with.
  const address = getAddress(receipt.contractAddress);
  const code = await context.publicClient.getCode({ address });
  if (code === undefined || code === "0x") throw new Error(`no code at ${address} after ${hash}`);
  return address;
}

/**
 * Waits for already-sent transactions and fails naming the first one that reverted. Callers send a batch
 * of independent transactions first and confirm them together, for the same one-block reason as above.
 */
export async function confirmTransactions(
  publicClient: PublicClient<HttpTransport, Chain>,
  sent: readonly { what: string; hash: Hash }[],
): Promise<void> {
  const receipts = await Promise.all(
    sent.map(({ hash }) => publicClient.waitForTransactionReceipt({ hash, timeout: 60_000 })),
  );
  receipts.forEach((receipt, index) => {
    if (receipt.status !== "success")
      throw new Error(`${sent[index]!.what}: transaction ${receipt.transactionHash} reverted`);
  });
}
