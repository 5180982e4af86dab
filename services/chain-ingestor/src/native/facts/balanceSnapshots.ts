import type { ChainRef } from "@platform/proto/common/v1/common";
import type { AccountBalance } from "@platform/proto/events/v1/chain_network";
import { eventTypeOf } from "@platform/proto/topics";
import { accountFromPublicKey } from "@platform/subtensor";
import type { Hex } from "viem";
import { type NetworkRecord, networkEventId } from "../records/networkRecord.js";

/**
 * One AccountBalanceSnapshot per account whose balance changed in the block without activity of
 * its own, keyed by its public key so it travels in the partition of its activity (the accounts
 * projection applies an account's records in order). An account whose balance could not be read
 * is left out: its standing point stays, as for an activity without a balance.
 */
export function balanceSnapshotRecords(
  accounts: readonly Hex[],
  balances: ReadonlyMap<string, AccountBalance>,
  context: { chainId: number; ref: ChainRef },
): NetworkRecord[] {
  return accounts.flatMap((publicKey) => {
    const balance = balances.get(publicKey);
    if (balance === undefined) return [];
    const payload = {
      event: {
        $case: "accountBalanceSnapshot" as const,
        value: { ref: context.ref, account: accountFromPublicKey(publicKey), balance },
      },
    };
    const eventType = eventTypeOf(payload);
    return [
      {
        topic: "chain.network.v1" as const,
        key: publicKey,
        eventId: networkEventId(context.chainId, context.ref.blockHash, eventType, publicKey),
        eventType,
        ref: context.ref,
        payload,
      },
    ];
  });
}
