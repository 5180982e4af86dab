import {
  connectNativeChain,
  NativeCallError,
  nativeDevPair,
  nativeKeyring,
  nativeTx,
  sendNativeCalls,
} from "@platform/devnet";
import type { RunningStack } from "@platform/local-stack";

/** The read models the bench measures, where they have data: an account with positions and a full page of transactions, and a subnet with a metagraph. */
export interface SeededActivity {
  /** SS58 of the account whose balance and transactions are read. */
  address: string;
  /** A subnet the stack's seed registered, with neurons (its validators are read). */
  netuid: number;
}

const RAO_PER_TAO = 1_000_000_000n;
/** The native simulator signs with the same dev accounts; a nonce it took meanwhile refuses our call once. */
const ATTEMPTS = 3;

/**
 * Gives a seeded coldkey of the real runtime (Alice: she owns a subnet, so her balance has alpha
 * positions) `transfers` incoming transfers, so her first page of transactions is full: one
 * `utility.batchAll` of transfers from Ferdie, a real signed extrinsic in a block of the node's
 * timer (one extrinsic, because chopsticks applies each extrinsic with a runtime call of its own,
 * about 90 ms here, and the batch's transfers are events of one).
 */
export async function seedAccountActivity(stack: RunningStack, transfers: number): Promise<SeededActivity> {
  const substrate = stack.descriptor.substrate;
  if (substrate === undefined)
    throw new Error("the stack runs no native network (startStack needs nativeNetwork: true)");
  const subject = substrate.demoAccounts.find((account) => account.name === "Alice");
  if (subject === undefined) throw new Error("the native network's seed named no account Alice");
  const chain = await connectNativeChain(substrate.rpcUrl);
  try {
    const ferdie = nativeDevPair(await nativeKeyring(), "Ferdie");
    const transfer = nativeTx(chain.api, "balances", "transferKeepAlive");
    for (let attempt = 1; ; attempt++) {
      try {
        const batch = nativeTx(
          chain.api,
          "utility",
          "batchAll",
        )(Array.from({ length: transfers }, (_, index) => transfer(subject.ss58, RAO_PER_TAO / 100n + BigInt(index))));
        await sendNativeCalls(chain, [{ label: `${transfers} transfers Ferdie → Alice`, tx: batch, signer: ferdie }]);
        break;
      } catch (error) {
        if (!(error instanceof NativeCallError) || attempt === ATTEMPTS) throw error;
      }
    }
  } finally {
    await chain.close();
  }
  return { address: subject.ss58, netuid: substrate.netuids[0]! };
}
