import { accountFromEvmAddress, accountFromPublicKey, weiToRao, type AccountId } from "@platform/subtensor";
import { TransactionType } from "@platform/proto/common/v1/network";
import type { Hex } from "viem";
import { balanceTransferPrecompile, decodeBalanceTransfer, decodeStakingCall, stakingPrecompile } from "./stakingCalls.js";

/** A mined transaction as the activity decoder needs it (raw JSON-RPC fields, already parsed). */
export interface MinedTransaction {
  hash: Hex;
  index: number;
  from: Hex;
  /** Absent for a contract creation. */
  to?: Hex | undefined;
  valueWei: bigint;
  input: Hex;
  success: boolean;
  gasUsed: bigint;
  effectiveGasPriceWei: bigint;
}

/** One touched account's side of an activity. */
export interface ActivityParty {
  account: AccountId;
  direction: "in" | "out";
}

/** A transaction's meaning for the accounts it touched, before balances are read. */
export interface Activity {
  /** `<block>-<tx index>-0`: a transaction-level activity (precompiles emit no logs). */
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
  /** Substrate-sourced activity (the native source): where in the block it was read. */
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

/**
 * What a transaction did, decoded from its target and input: a TAO transfer (plain value transfer or
 * the BalanceTransfer precompile), a Staking V2 call by selector, or any other EVM transaction of the
 * sender. Fees are gasUsed × effectiveGasPrice, in rao (truncated below one rao, as the chain's
 * converter does).
 */
export function decodeActivity(blockNumber: bigint, tx: MinedTransaction): Activity {
  const from = accountFromEvmAddress(tx.from);
  const base = {
    activityId: `${blockNumber}-${tx.index}-0`,
    txHash: tx.hash,
    txIndex: tx.index,
    success: tx.success,
    from,
    feeRao: weiToRao(tx.gasUsed * tx.effectiveGasPriceWei),
    stakeTouches: [] as Activity["stakeTouches"],
  };
  const to = tx.to?.toLowerCase();
  const amountRao = weiToRao(tx.valueWei);

  if (to === balanceTransferPrecompile) {
    const recipient = decodeBalanceTransfer(tx.input);
    if (recipient !== undefined) {
      const toAccount = accountFromPublicKey(recipient);
      return { ...base, type: TransactionType.TRANSACTION_TYPE_TRANSFER, to: toAccount, amountRao, parties: transferParties(from, toAccount) };
    }
  }

  if (to === stakingPrecompile) {
    const call = decodeStakingCall(tx.input);
    if (call !== undefined) {
      const hotkey = accountFromPublicKey(call.hotkey);
      const touch = (coldkey: AccountId, key: AccountId, netuid: number) => ({ coldkey, hotkey: key, netuid });
      switch (call.kind) {
        case "addStake":
          return {
            ...base,
            type: TransactionType.TRANSACTION_TYPE_STAKE_ADD,
            amountRao: call.amountRao,
            netuid: call.netuid,
            hotkey,
            parties: [{ account: from, direction: "out" }],
            stakeTouches: [touch(from, hotkey, call.netuid)],
          };
        case "removeStake":
          return {
            ...base,
            type: TransactionType.TRANSACTION_TYPE_STAKE_REMOVE,
            netuid: call.netuid,
            hotkey,
            ...(call.amountNalpha === undefined ? {} : { alphaNalpha: call.amountNalpha }),
            parties: [{ account: from, direction: "in" }],
            stakeTouches: [touch(from, hotkey, call.netuid)],
          };
        case "moveStake": {
          const destination = accountFromPublicKey(call.destinationHotkey);
          return {
            ...base,
            type: call.netuid === call.destinationNetuid ? TransactionType.TRANSACTION_TYPE_STAKE_MOVE : TransactionType.TRANSACTION_TYPE_STAKE_SWAP,
            netuid: call.netuid,
            hotkey,
            alphaNalpha: call.amountNalpha,
            parties: [{ account: from, direction: "out" }],
            stakeTouches: [touch(from, hotkey, call.netuid), touch(from, destination, call.destinationNetuid)],
          };
        }
        case "transferStake": {
          const destination = accountFromPublicKey(call.destinationColdkey);
          return {
            ...base,
            type: TransactionType.TRANSACTION_TYPE_STAKE_TRANSFER,
            to: destination,
            netuid: call.netuid,
            hotkey,
            alphaNalpha: call.amountNalpha,
            parties: transferParties(from, destination),
            stakeTouches: [touch(from, hotkey, call.netuid), touch(destination, hotkey, call.destinationNetuid)],
          };
        }
        case "burnAlpha":
          return {
            ...base,
            type: TransactionType.TRANSACTION_TYPE_ALPHA_BURN,
            netuid: call.netuid,
            hotkey,
            alphaNalpha: call.amountNalpha,
            parties: [{ account: from, direction: "out" }],
            stakeTouches: [touch(from, hotkey, call.netuid)],
          };
      }
    }
  }

  if (to !== undefined && amountRao > 0n) {
    // Value sent to an address (an account or a contract): TAO moved from one account to another.
    const toAccount = accountFromEvmAddress(tx.to!);
    return { ...base, type: TransactionType.TRANSACTION_TYPE_TRANSFER, to: toAccount, amountRao, parties: transferParties(from, toAccount) };
  }
  return {
    ...base,
    type: TransactionType.TRANSACTION_TYPE_EVM_TX,
    ...(tx.to === undefined ? {} : { to: accountFromEvmAddress(tx.to) }),
    ...(amountRao > 0n ? { amountRao } : {}),
    parties: [{ account: from, direction: "out" }],
  };
}

/** Sender out, recipient in; a transfer to oneself is one record. */
export function transferParties(from: AccountId, to: AccountId): ActivityParty[] {
  if (from.publicKey === to.publicKey) return [{ account: from, direction: "out" }];
  return [
    { account: from, direction: "out" },
    { account: to, direction: "in" },
  ];
}
