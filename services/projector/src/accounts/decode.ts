import type { ConsumedRecord } from "@platform/bus";
import { DecodeError } from "@platform/errors/base";
import type { Logger } from "@platform/log";
import type { ChainRef } from "@platform/proto/common/v1/common";
import { type AccountId, Direction, TransactionSource, TransactionType } from "@platform/proto/common/v1/network";
import { AccountActivity, AccountBalance, type AccountBalanceSnapshot } from "@platform/proto/events/v1/chain_network";
import { decodePayload, TOPICS } from "@platform/proto/topics";
import { accountsKeys } from "@platform/read-models";
import { skippable } from "../shared/eventBytes.js";
import {
  pointBlockPrefix,
  pointForkPrefix,
  pointMember,
  scoreOf,
  txForkPrefix,
  txMember,
  txPosition,
} from "./members.js";

/** What one record asks of the read model, in offset order. */
export type AccountsChange =
  | {
      kind: "activity";
      account: string;
      score: number;
      /** Members of that block's points to replace (another reading of the same block). */
      pointPrefix: string;
      /** Absent when the ingestor could not read the balance: the standing one is kept. */
      point: string | undefined;
      tx: string;
      /** base64 AccountActivity without balance_after. */
      detail: string;
    }
  /** A balance point without a transaction (AccountBalanceSnapshot: stake changed by an epoch). */
  | { kind: "point"; account: string; score: number; pointPrefix: string; point: string }
  /** A removed record's point, and its transactions when it was an activity. */
  | { kind: "removed"; account: string; score: number; pointPrefix: string; txPrefix: string | undefined }
  /** A partition delivered all its records of a block (its BlockSeen). */
  | { kind: "block"; partition: number; number: string; member: string }
  /** A partition's BlockSeen was taken back: that block is no longer canonical. */
  | { kind: "unblock"; partition: number; member: string };

const PUBLIC_KEY = /^0x[0-9a-f]{64}$/;

/** The head entry of a BlockSeen's ref (`rm:{data}:accounts:blocks:<partition>` member). */
function blockMember(ref: ChainRef | undefined): { number: string; member: string } {
  if (ref === undefined || ref.blockHash === "" || ref.blockTimestamp === "")
    throw new DecodeError("BlockSeen without a block");
  const member = JSON.stringify({
    chainId: ref.chainId,
    blockNumber: ref.blockNumber,
    blockHash: ref.blockHash.toLowerCase(),
    timestamp: new Date(ref.blockTimestamp).toISOString(),
  });
  return { number: ref.blockNumber, member };
}

/**
 * Rewards sit at the start of their block (`<block>-000000-0000000`): the epoch that pays them runs
 * as the block starts, before its extrinsics.
 */
const rewardPosition = (block: string): string => txPosition(block, 0, undefined);

/**
 * The reward transactions a balance carries (AccountBalance.rewards, decided by the ingestor), one
 * per position: income (direction in) or, for a position that lost value, a loss (out), with the
 * absolute alpha and TAO value. Every record of the account's block carries the same rewards, so
 * each reading writes the same members.
 */
function rewardChanges(
  owner: AccountId | undefined,
  account: string,
  ref: ChainRef,
  balance: AccountBalance | undefined,
  score: number,
): AccountsChange[] {
  if (balance === undefined || balance.rewards.length === 0) return [];
  const position = rewardPosition(ref.blockNumber);
  return balance.rewards.map((reward): AccountsChange => {
    const alpha = BigInt(reward.alphaNalpha || "0");
    const value = BigInt(reward.taoValueRao || "0");
    const direction = alpha < 0n ? Direction.DIRECTION_OUT : Direction.DIRECTION_IN;
    const hotkey = reward.hotkey?.publicKey.toLowerCase() ?? "";
    const activityId = `${ref.blockNumber}-reward-${reward.netuid}-${hotkey}`;
    const detail: AccountActivity = {
      ref: { ...ref, txHash: undefined, txIndex: 0, logIndex: undefined },
      account: owner,
      activityId,
      type: TransactionType.TRANSACTION_TYPE_REWARD,
      direction,
      success: true,
      from: undefined,
      to: owner,
      amountRao: (value < 0n ? -value : value).toString(),
      netuid: reward.netuid,
      hotkey: reward.hotkey,
      alphaNalpha: (alpha < 0n ? -alpha : alpha).toString(),
      source: TransactionSource.TRANSACTION_SOURCE_STORAGE,
      balanceAfter: undefined,
    };
    return {
      kind: "activity",
      account,
      score,
      pointPrefix: pointBlockPrefix(ref.blockNumber),
      point: undefined,
      tx: txMember(position, ref.blockHash, activityId, direction),
      detail: Buffer.from(AccountActivity.encode(detail).finish()).toString("base64"),
    };
  });
}

function activityChange(activity: AccountActivity): AccountsChange[] {
  const ref = activity.ref;
  const account = activity.account?.publicKey.toLowerCase() ?? "";
  if (ref === undefined || ref.blockHash === "") throw new DecodeError("account activity without a block");
  if (!PUBLIC_KEY.test(account)) throw new DecodeError(`account activity for a malformed public key: ${account}`);
  const score = scoreOf(ref.blockTimestamp);
  const balance =
    activity.balanceAfter === undefined
      ? undefined
      : Buffer.from(AccountBalance.encode(activity.balanceAfter).finish()).toString("base64");
  const position = txPosition(ref.blockNumber, ref.txIndex, ref.logIndex);
  const detail = Buffer.from(AccountActivity.encode({ ...activity, balanceAfter: undefined }).finish()).toString(
    "base64",
  );
  return [
    {
      kind: "activity",
      account,
      score,
      pointPrefix: pointBlockPrefix(ref.blockNumber),
      point:
        balance === undefined
          ? undefined
          : pointMember(ref.blockNumber, ref.blockHash, Date.parse(ref.blockTimestamp), balance),
      tx: txMember(position, ref.blockHash, activity.activityId, activity.direction),
      detail,
    },
    ...rewardChanges(activity.account, account, ref, activity.balanceAfter, score),
  ];
}

function pointChange(snapshot: AccountBalanceSnapshot): AccountsChange[] {
  const ref = snapshot.ref;
  const account = snapshot.account?.publicKey.toLowerCase() ?? "";
  if (ref === undefined || ref.blockHash === "") throw new DecodeError("balance snapshot without a block");
  if (!PUBLIC_KEY.test(account)) throw new DecodeError(`balance snapshot for a malformed public key: ${account}`);
  if (snapshot.balance === undefined) throw new DecodeError("balance snapshot without a balance");
  const balance = Buffer.from(AccountBalance.encode(snapshot.balance).finish()).toString("base64");
  const score = scoreOf(ref.blockTimestamp);
  return [
    {
      kind: "point",
      account,
      score,
      pointPrefix: pointBlockPrefix(ref.blockNumber),
      point: pointMember(ref.blockNumber, ref.blockHash, Date.parse(ref.blockTimestamp), balance),
    },
    ...rewardChanges(snapshot.account, account, ref, snapshot.balance, score),
  ];
}

/**
 * Decodes a batch of chain.network.v1 into changes: a BlockSeen marks its block delivered by the
 * record's partition (the head moves to the newest block every partition delivered); an
 * AccountActivity adds a transaction and its block's balance point, an AccountBalanceSnapshot the
 * point alone; either adds a `reward` transaction per reward its balance carries; a ChainEventRemoved
 * of a BlockSeen takes that block back out of its partition's blocks, of an AccountActivity its
 * transaction and balance point, of an AccountBalanceSnapshot its point, and of either the block's
 * reward transactions of the account. Other kinds change nothing. A record that can never be
 * decoded is logged and skipped: retried, it would stop the projection for good.
 */
/** The chain.network.v1 events the accounts projection reads (others are skipped undecoded). */
const ACCOUNTS_EVENT_TYPES = new Set(["AccountActivity", "AccountBalanceSnapshot", "BlockSeen", "ChainEventRemoved"]);

export function decodeAccountsBatch(messages: readonly ConsumedRecord[], log: Logger): AccountsChange[] {
  const changes: AccountsChange[] = [];
  for (const message of messages) {
    if (message.value === null) continue;
    const where = { topic: message.topic, partition: message.partition, offset: message.offset };
    try {
      changes.push(...decodeAccountsRecord(message, log));
    } catch (error) {
      log.error({ ...where, err: error }, "undecodable chain.network.v1 record; skipped by the accounts projection");
    }
  }
  return changes;
}

/** One record's changes (decodeAccountsBatch's rules); throws on a record that can never be decoded. */
export function decodeAccountsRecord(message: ConsumedRecord, log: Logger): AccountsChange[] {
  if (message.value === null) return [];
  if (message.topic !== TOPICS.chainNetwork.name) {
    log.warn(
      { topic: message.topic, partition: message.partition, offset: message.offset },
      "record of a topic the accounts projection does not read; skipped",
    );
    return [];
  }
  if (skippable(message, ACCOUNTS_EVENT_TYPES)) return [];
  const event = decodePayload(TOPICS.chainNetwork, message.value).event;
  if (event === undefined) throw new DecodeError("no event in the record");
  if (event.$case === "chainEventRemoved") {
    const changes: AccountsChange[] = [];
    const removed = event.value;
    const ref = removed.removed;
    if (removed.removedEventType === "BlockSeen")
      changes.push({ kind: "unblock", partition: message.partition, member: blockMember(ref).member });
    const isActivity = removed.removedEventType === "AccountActivity";
    if ((isActivity || removed.removedEventType === "AccountBalanceSnapshot") && ref !== undefined) {
      const account = removed.key.toLowerCase();
      if (!PUBLIC_KEY.test(account)) throw new DecodeError(`removal for a malformed public key: ${account}`);
      changes.push({
        kind: "removed",
        account,
        score: scoreOf(ref.blockTimestamp),
        pointPrefix: pointForkPrefix(ref.blockNumber, ref.blockHash),
        txPrefix: isActivity
          ? txForkPrefix(txPosition(ref.blockNumber, ref.txIndex, ref.logIndex), ref.blockHash)
          : undefined,
      });
      // The rewards the removed record's balance carried (the block's rewards of the account).
      changes.push({
        kind: "removed",
        account,
        score: scoreOf(ref.blockTimestamp),
        pointPrefix: pointForkPrefix(ref.blockNumber, ref.blockHash),
        txPrefix: txForkPrefix(rewardPosition(ref.blockNumber), ref.blockHash),
      });
    }
    return changes;
  }
  if (event.$case === "blockSeen")
    return [{ kind: "block", partition: message.partition, ...blockMember(event.value.ref) }];
  if (event.$case === "accountActivity") return activityChange(event.value);
  if (event.$case === "accountBalanceSnapshot") return pointChange(event.value);
  return [];
}

/** The (zset key, score) slices a batch's account changes read and write. */
export function slicesOf(
  changes: readonly AccountsChange[],
  withTransactions = true,
): Array<{ key: string; score: number }> {
  const seen = new Map<string, { key: string; score: number }>();
  for (const change of changes) {
    if (change.kind !== "activity" && change.kind !== "removed" && change.kind !== "point") continue;
    const keys = [accountsKeys.points(change.account)];
    if (withTransactions) keys.push(accountsKeys.txs(change.account));
    for (const key of keys) seen.set(sliceId(key, change.score), { key, score: change.score });
  }
  return [...seen.values()];
}

export const sliceId = (key: string, score: number): string => `${key}\u0000${score}`;

/**
 * The changes as Redis keeps them once the history database holds the transactions: balance points
 * only (an activity's point, a removal's point), so Redis holds no transaction at all.
 */
export function pointChangesOnly(changes: readonly AccountsChange[]): AccountsChange[] {
  return changes.flatMap((change): AccountsChange[] => {
    if (change.kind === "activity")
      return change.point === undefined
        ? []
        : [
            {
              kind: "point",
              account: change.account,
              score: change.score,
              pointPrefix: change.pointPrefix,
              point: change.point,
            },
          ];
    if (change.kind === "removed") return [{ ...change, txPrefix: undefined }];
    return [change];
  });
}
