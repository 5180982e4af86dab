import type { RunningStack } from "@platform/local-stack";
import { createNetworkContext, sendTransfers } from "@platform/simulator";
import { isAddress, parseEther, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

/** The local stack's simulator runs with SIM_SEED's default (deploy/simulator intents/simulatorConfig.ts). */
const SIMULATOR_SEED = "1";

/**
 * Gives the network simulator's first test account (which the simulator also stakes and transfers
 * with, so its balance has positions) `transfers` incoming native transfers from a fresh sender,
 * so its first page of transactions is full. A fresh sender: the simulator's own accounts' nonces
 * are in use by the running simulator. Answers the account's EVM address.
 */
export async function seedAccountActivity(stack: RunningStack, transfers: number): Promise<Address> {
  const native = stack.descriptor.chains.find((chain) => chain.name === "subtensor");
  const priceFeed = native?.contracts["priceFeed"];
  const simulator = stack.devnetAccounts?.simulator;
  if (native === undefined || priceFeed === undefined || !isAddress(priceFeed) || simulator === undefined) {
    throw new Error("the stack has no native subtensor devnet with a price feed deployed by this run");
  }
  const ctx = await createNetworkContext({ rpcUrl: native.rpcUrl, simulatorKey: simulator.privateKey, priceFeed, seed: SIMULATOR_SEED });
  const subject = ctx.accounts[0]!.account.address;
  const sender = privateKeyToAccount(generatePrivateKey());
  await ctx.testClient.setBalance({ address: sender.address, value: parseEther("1000") });
  await sendTransfers(ctx, sender, subject, transfers);
  return subject;
}
