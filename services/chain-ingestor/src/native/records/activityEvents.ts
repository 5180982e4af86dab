import type { ChainRef } from "@platform/proto/common/v1/common";
import { Direction, TransactionSource } from "@platform/proto/common/v1/network";
import type { AccountActivity, AccountBalance } from "@platform/proto/events/v1/chain_network";
import type { AccountId } from "@platform/subtensor";
import type { Activity } from "./activity.js";
import { type NetworkRecord, networkEventId } from "./networkRecord.js";

export interface ActivityContext {
  chainId: number;
  /** The block's ChainRef; each record adds its transaction. */
  blockRef: ChainRef;
  /** Balances at the end of the block by public key; absent for an account whose free balance cannot be read. */
  balances: ReadonlyMap<string, AccountBalance>;
}

/** One AccountActivity record per touched account of each activity, in transaction order. */
export function activityRecords(activities: readonly Activity[], context: ActivityContext): NetworkRecord[] {
  const records: NetworkRecord[] = [];
  for (const activity of activities) {
    for (const party of activity.parties) {
      const balanceAfter = context.balances.get(party.account.publicKey);
      const value: AccountActivity = {
        ref: {
          ...context.blockRef,
          txHash: activity.txHash,
          txIndex: activity.txIndex,
          ...(activity.substrate === undefined ? {} : { logIndex: activity.substrate.eventIndex }),
        },
        account: party.account,
        activityId: activity.activityId,
        type: activity.type,
        direction: party.direction === "in" ? Direction.DIRECTION_IN : Direction.DIRECTION_OUT,
        success: activity.success,
        from: activity.from,
        ...(activity.to === undefined ? {} : { to: activity.to }),
        ...(activity.amountRao === undefined ? {} : { amountRao: activity.amountRao.toString() }),
        feeRao: activity.feeRao.toString(),
        ...(activity.netuid === undefined ? {} : { netuid: activity.netuid }),
        ...(activity.hotkey === undefined ? {} : { hotkey: activity.hotkey }),
        ...(activity.alphaNalpha === undefined ? {} : { alphaNalpha: activity.alphaNalpha.toString() }),
        source:
          activity.substrate === undefined
            ? TransactionSource.TRANSACTION_SOURCE_EVM_TX
            : TransactionSource.TRANSACTION_SOURCE_SUBSTRATE_EVENT,
        ...(balanceAfter === undefined ? {} : { balanceAfter }),
        ...substrateFields(activity, context.blockRef.blockNumber),
      };
      records.push({
        topic: "chain.network.v1",
        key: party.account.publicKey,
        eventId: networkEventId(
          context.chainId,
          context.blockRef.blockHash,
          "AccountActivity",
          ...activityPlace(activity),
          party.account.publicKey,
        ),
        eventType: "AccountActivity",
        ref: value.ref!,
        payload: { event: { $case: "accountActivity", value } },
      });
    }
  }
  return records;
}

/** Where the activity sits in its block: the transaction, and for a Substrate event also the event. */
function activityPlace(activity: Activity): (string | number)[] {
  return activity.substrate === undefined ? [activity.txIndex] : [activity.txIndex, activity.substrate.eventIndex];
}

/** The extrinsic id and hash, the event's name and the effective price of Substrate-sourced activity. */
function substrateFields(activity: Activity, blockNumber: string): Partial<AccountActivity> {
  const origin = activity.substrate;
  if (origin === undefined) return {};
  return {
    extrinsicId: `${blockNumber}-${activity.txIndex}`,
    extrinsicHash: origin.extrinsicHash,
    eventName: origin.eventName,
    ...(origin.effectivePriceTao === undefined ? {} : { effectivePriceTao: origin.effectivePriceTao }),
  };
}

/** The distinct accounts the activities touched, first appearance first. */
export function touchedAccounts(activities: readonly Activity[]): AccountId[] {
  const seen = new Map<string, AccountId>();
  for (const activity of activities) {
    for (const party of activity.parties)
      if (!seen.has(party.account.publicKey)) seen.set(party.account.publicKey, party.account);
  }
  return [...seen.values()];
}
