import type { AccountId } from "@platform/subtensor";
import {
  connectNativeChain,
  nativeKeyring,
  nativeStorage,
  nativeTx,
  readNativeInteger,
} from "../native/nativeChain.js";
import { sendNativeCalls } from "../native/nativeSubmit.js";

export interface NativeGrantResult {
  /** The account paid (an EVM address's mapped account for an H160). */
  account: AccountId;
  addedRao: bigint;
  /** Its free balance at the block that holds the transfer. */
  freeRao: bigint;
  blockNumber: number;
  blockHash: `0x${string}`;
}

/** The faucet's own account: a dev key (public, like //Alice), which nothing else of the devnet signs with. */
const FAUCET_URI = "//Faucet";
/** Left on the faucet beyond what it sends: the transfer's fee. */
const FEE_ALLOWANCE_RAO = 1_000_000_000n;

/**
 * Gives `to` TAO on the devnet's Subtensor (chopsticks) as a real `balances.transferKeepAlive` from
 * the faucet's account, so the transfer has its block and its `Balances.Transfer` event: the stack's
 * ingestor reads an account's balance when an event names it, so a balance written straight into
 * `System.Account` would stay unseen by the Data API. What the faucet sends is first written into its
 * own account (`dev_setStorage`, as the seed funds the dev accounts), with both issuances raised by
 * the same amount so the network's totals still add up.
 *
 * `blockTimeMs` is the node's block timer: 0 when blocks come only on demand, then this builds one.
 */
export async function fundNativeAccount(
  rpcUrl: string,
  to: AccountId,
  addedRao: bigint,
  blockTimeMs: number,
): Promise<NativeGrantResult> {
  const chain = await connectNativeChain(rpcUrl);
  try {
    const { api } = chain;
    const faucet = (await nativeKeyring()).addFromUri(FAUCET_URI);
    const minted = addedRao + FEE_ALLOWANCE_RAO;
    const [stored, balancesIssuance, subtensorIssuance] = await Promise.all([
      nativeStorage(api, "system", "account")(faucet.address),
      readNativeInteger(api, "balances", "totalIssuance"),
      readNativeInteger(api, "subtensorModule", "totalIssuance"),
    ]);
    const info = stored.toJSON() as {
      nonce: number;
      consumers: number;
      providers: number;
      sufficients: number;
      data: { free: number | string; reserved: number | string; frozen: number | string; flags?: unknown };
    };
    await chain.rpc("dev_setStorage", [
      {
        System: {
          Account: [
            [
              [faucet.address],
              {
                ...info,
                providers: Math.max(1, info.providers),
                data: {
                  ...info.data,
                  free: (BigInt(info.data.free) + minted).toString(),
                  reserved: BigInt(info.data.reserved).toString(),
                  frozen: BigInt(info.data.frozen).toString(),
                },
              },
            ],
          ],
        },
        Balances: { TotalIssuance: (balancesIssuance + minted).toString() },
        SubtensorModule: { TotalIssuance: (subtensorIssuance + minted).toString() },
      },
    ]);
    const [landed] = await sendNativeCalls(
      chain,
      [
        {
          label: `transfer ${addedRao} rao to ${to.ss58}`,
          tx: nativeTx(api, "balances", "transferKeepAlive")(to.ss58, addedRao),
          signer: faucet,
        },
      ],
      blockTimeMs > 0 ? { timeoutMs: 30_000 } : { buildBlock: () => chain.rpc("dev_newBlock", [{ count: 1 }]) },
    );
    const after = (await (await api.at(landed!.blockHash)).query.system!.account!(to.ss58)).toJSON() as {
      data: { free: number | string };
    };
    return {
      account: to,
      addedRao,
      freeRao: BigInt(after.data.free),
      blockNumber: landed!.blockNumber,
      blockHash: landed!.blockHash,
    };
  } finally {
    await chain.close();
  }
}
