import type { TransactionType } from "@platform/proto/common/v1/network";
import type { AccountId } from "@platform/subtensor";
import type { Hex } from "viem";

/*
 * An account's activity as the native source reads it from a block's runtime events, before the
 * records (activityEvents.ts) carry it out with each touched account's balance.
 */

/** One touched account's side of an activity. */
export interface ActivityParty {
  account: AccountId;
  direction: "in" | "out";
}

/** A transaction's meaning for the accounts it touched, before balances are read. */
export interface Activity {
  /** `<block>-<extrinsic>-<event>`: where in the block it was read. */
  activityId: string;
  txHash: Hex;
  txIndex: number;
  type: TransactionType;
  success: boolean;
  from: AccountId;
  to?: AccountId;
  amountRao?: bigint;
  feeRao: bigint;
  netuid?: number;
  hotkey?: AccountId;
  alphaNalpha?: bigint;
  /** The accounts that get a record, in order (sender first). */
  parties: ActivityParty[];
  /** Stake positions this activity touched, so the balance reader looks them up even if unindexed. */
  stakeTouches: { coldkey: AccountId; hotkey: AccountId; netuid: number }[];
  /** The runtime event it was read from. */
  substrate?: SubstrateOrigin;
}

/** The runtime event an activity was read from; `txHash`/`txIndex` are then its extrinsic's. */
export interface SubstrateOrigin {
  eventIndex: number;
  /** "<Pallet>.<Event>", as the block's metadata names it. */
  eventName: string;
  /** blake2_256 of the extrinsic (`txHash` is the EVM transaction's own hash for an EVM execution). */
  extrinsicHash: `0x${string}`;
  /** TAO per alpha the stake operation executed at (decimal string). */
  effectivePriceTao?: string;
}

/** Sender out, recipient in; a transfer to oneself is one record. */
export function transferParties(from: AccountId, to: AccountId): ActivityParty[] {
  if (from.publicKey === to.publicKey) return [{ account: from, direction: "out" }];
  return [
    { account: from, direction: "out" },
    { account: to, direction: "in" },
  ];
}
