import type { ConsumedRecord } from "@platform/bus";
import { createLogger } from "@platform/log";
import { type ChainRef, Finality } from "@platform/proto/common/v1/common";
import { Direction, TransactionSource, TransactionType } from "@platform/proto/common/v1/network";
import { AccountActivity, AccountBalance, type NetworkChainEvent } from "@platform/proto/events/v1/chain_network";
import { encodePayload, TOPICS } from "@platform/proto/topics";
import { accountsKeys } from "@platform/read-models";
import { describe, expect, it } from "vitest";
import { type AccountsChange, decodeAccountsBatch } from "./decode.js";
import { type AccountsSlices, foldAccounts, sliceWrites } from "./fold.js";
import { headArguments } from "./head.js";
import { parsePointMember } from "./members.js";

/* The accounts fold as pure functions: records in, sorted-set slices out. */

const log = createLogger({ service: "test", level: "silent" });
const ALICE = `0x${"a1".repeat(32)}`;
const BOB = `0x${"b2".repeat(32)}`;
const T0 = 1_800_000_000;

const hashOf = (block: number, fork = "a") => `0x${fork.repeat(2)}${block.toString(16).padStart(62, "0")}`;

function ref(
  block: number,
  txIndex: number,
  logIndex: number | undefined,
  fork = "a",
  time = T0 + block * 12,
): ChainRef {
  return {
    chainId: "964",
    blockNumber: String(block),
    blockHash: hashOf(block, fork),
    parentHash: hashOf(block - 1, fork),
    blockTimestamp: new Date(time * 1_000).toISOString(),
    txHash: `0x${block.toString(16).padStart(60, "0")}${txIndex.toString(16).padStart(4, "0")}`,
    txIndex,
    ...(logIndex === undefined ? {} : { logIndex }),
    finality: Finality.FINALITY_LATEST,
  };
}

const account = (publicKey: string) => ({ ss58: `ss58-${publicKey.slice(2, 6)}`, publicKey });

function activity(
  owner: string,
  at: ChainRef,
  free: string,
  direction = Direction.DIRECTION_IN,
  amount = "1000",
): NetworkChainEvent {
  return {
    event: {
      $case: "accountActivity",
      value: {
        ref: at,
        account: account(owner),
        activityId: `${at.blockNumber}-${at.txIndex}-${at.logIndex ?? 0}`,
        type: TransactionType.TRANSACTION_TYPE_TRANSFER,
        direction,
        success: true,
        from: account(direction === Direction.DIRECTION_IN ? BOB : owner),
        to: account(direction === Direction.DIRECTION_IN ? owner : BOB),
        amountRao: amount,
        source: TransactionSource.TRANSACTION_SOURCE_EVM_TX,
        balanceAfter: { freeRao: free, reservedRao: "0", frozenRao: "0", positions: [], rewards: [] },
      },
    },
  };
}

function removal(owner: string, at: ChainRef, ancestor: number): NetworkChainEvent {
  return {
    event: {
      $case: "chainEventRemoved",
      value: {
        removed: at,
        removedEventId: "e",
        removedEventType: "AccountActivity",
        key: owner,
        commonAncestorBlockNumber: String(ancestor),
        commonAncestorBlockHash: hashOf(ancestor),
        detectedAt: new Date().toISOString(),
      },
    },
  };
}

function records(events: NetworkChainEvent[]): ConsumedRecord[] {
  return events.map((payload, index) => ({
    topic: TOPICS.chainNetwork.name,
    partition: 0,
    offset: String(index),
    timestamp: "0",
    key: undefined,
    value: Buffer.from(encodePayload(TOPICS.chainNetwork, payload)),
    eventId: undefined,
    eventType: undefined,
    schema: undefined,
    traceparent: undefined,
    tracestate: undefined,
    headers: {},
  }));
}

const empty = (): AccountsSlices => ({ members: new Map(), details: new Map() });
const changesOf = (events: NetworkChainEvent[]): AccountsChange[] => decodeAccountsBatch(records(events), log);

/** Every member of a key across its slices, in Redis' (score, member) order. */
function membersOf(slices: AccountsSlices, key: string): string[] {
  return [...slices.members]
    .filter(([id]) => id.startsWith(`${key}\u0000`))
    .flatMap(([id, set]) => [...set].map((member) => ({ score: Number(id.split("\u0000")[1]), member })))
    .sort((a, b) => a.score - b.score || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0))
    .map((entry) => entry.member);
}

const freeOf = (member: string) =>
  AccountBalance.decode(Buffer.from(parsePointMember(member)!.balance, "base64")).freeRao;

describe("accounts fold", () => {
  it("adds each activity's transaction in chain order and one balance point per block", () => {
    const folded = foldAccounts(
      empty(),
      changesOf([
        activity(ALICE, ref(10, 2, 5), "300"),
        activity(ALICE, ref(10, 0, undefined), "300"),
        activity(ALICE, ref(11, 1, 0), "200", Direction.DIRECTION_OUT),
      ]),
    );
    const txs = membersOf(folded, accountsKeys.txs(ALICE));
    expect(txs.map((member) => member.split("|")[2])).toEqual(["10-0-0", "10-2-5", "11-1-0"]);
    const points = membersOf(folded, accountsKeys.points(ALICE));
    expect(points.map((member) => [parsePointMember(member)!.block, freeOf(member)])).toEqual([
      ["10", "300"],
      ["11", "200"],
    ]);
    expect(folded.details.size).toBe(3);
  });

  it("takes back a removed block's transactions and balance point, and only that fork's", () => {
    const applied = foldAccounts(
      empty(),
      changesOf([activity(ALICE, ref(10, 0, undefined), "300"), activity(ALICE, ref(11, 0, undefined), "500")]),
    );
    // Removal of block 11 on another fork changes nothing.
    const wrongFork = foldAccounts(applied, changesOf([removal(ALICE, ref(11, 0, undefined, "c"), 10)]));
    expect(membersOf(wrongFork, accountsKeys.txs(ALICE))).toHaveLength(2);
    const undone = foldAccounts(applied, changesOf([removal(ALICE, ref(11, 0, undefined), 10)]));
    expect(membersOf(undone, accountsKeys.txs(ALICE)).map((member) => member.split("|")[2])).toEqual(["10-0-0"]);
    expect(membersOf(undone, accountsKeys.points(ALICE)).map(freeOf)).toEqual(["300"]);
    expect([...undone.details.values()].filter((detail) => detail === null)).toHaveLength(1);
    // The replacement fork's block 11 then lands in its place.
    const replaced = foldAccounts(undone, changesOf([activity(ALICE, ref(11, 0, undefined, "b"), "450")]));
    expect(membersOf(replaced, accountsKeys.points(ALICE)).map(freeOf)).toEqual(["300", "450"]);
  });

  it("adds a balance snapshot as a point without a transaction, and takes it back with its block", () => {
    const snapshot = (at: ChainRef, free: string): NetworkChainEvent => ({
      event: {
        $case: "accountBalanceSnapshot",
        value: {
          ref: { ...at, txHash: "" },
          account: account(ALICE),
          balance: { freeRao: free, reservedRao: "0", frozenRao: "0", positions: [], rewards: [] },
        },
      },
    });
    const applied = foldAccounts(
      empty(),
      changesOf([activity(ALICE, ref(10, 0, undefined), "300"), snapshot(ref(12, 0, undefined), "310")]),
    );
    expect(membersOf(applied, accountsKeys.points(ALICE)).map(freeOf)).toEqual(["300", "310"]);
    expect(membersOf(applied, accountsKeys.txs(ALICE))).toHaveLength(1);
    const removed = removal(ALICE, ref(12, 0, undefined), 11);
    if (removed.event?.$case === "chainEventRemoved") removed.event.value.removedEventType = "AccountBalanceSnapshot";
    const undone = foldAccounts(applied, changesOf([removed]));
    expect(membersOf(undone, accountsKeys.points(ALICE)).map(freeOf)).toEqual(["300"]);
    expect(membersOf(undone, accountsKeys.txs(ALICE))).toHaveLength(1);
    expect([...undone.details.values()].filter((detail) => detail === null)).toHaveLength(0);
  });

  it("keeps the standing balance when an activity carries no balance_after", () => {
    const withoutBalance = activity(ALICE, ref(11, 0, undefined), "0");
    if (withoutBalance.event?.$case === "accountActivity") withoutBalance.event.value.balanceAfter = undefined;
    const folded = foldAccounts(empty(), changesOf([activity(ALICE, ref(10, 0, undefined), "300"), withoutBalance]));
    expect(membersOf(folded, accountsKeys.points(ALICE)).map(freeOf)).toEqual(["300"]);
    expect(membersOf(folded, accountsKeys.txs(ALICE))).toHaveLength(2);
  });

  it("is idempotent: replaying a batch over its own result changes nothing", () => {
    const events = [
      activity(ALICE, ref(10, 0, undefined), "300"),
      activity(BOB, ref(10, 0, undefined), "7", Direction.DIRECTION_OUT),
      activity(ALICE, ref(12, 3, 1), "900"),
      removal(ALICE, ref(12, 3, 1), 11),
    ];
    const once = foldAccounts(empty(), changesOf(events));
    const twice = foldAccounts(once, changesOf(events));
    expect(sliceWrites(once, twice).filter(([command]) => command === "zadd" || command === "zrem")).toEqual([]);
    expect(membersOf(twice, accountsKeys.txs(ALICE))).toEqual(membersOf(once, accountsKeys.txs(ALICE)));
    expect(membersOf(twice, accountsKeys.points(BOB))).toEqual(membersOf(once, accountsKeys.points(BOB)));
  });

  it("writes only what differs between the stored and the folded slices", () => {
    const once = foldAccounts(empty(), changesOf([activity(ALICE, ref(10, 0, undefined), "300")]));
    const writes = sliceWrites(empty(), once);
    expect(writes.map(([command, key]) => [command, key])).toEqual([
      ["zadd", accountsKeys.points(ALICE)],
      ["zadd", accountsKeys.txs(ALICE)],
      ["hset", accountsKeys.tx(ALICE)],
    ]);
  });

  it("moves the head only on BlockSeen records, and takes a removed BlockSeen's block out by its exact member", () => {
    const blockRef = { ...ref(10, 0, undefined), txHash: "" };
    const seen: NetworkChainEvent = { event: { $case: "blockSeen", value: { ref: blockRef, partitions: 6 } } };
    const unseen: NetworkChainEvent = {
      event: {
        $case: "chainEventRemoved",
        value: {
          removed: blockRef,
          removedEventId: "x",
          removedEventType: "BlockSeen",
          key: "block-seen:0",
          commonAncestorBlockNumber: "9",
          commonAncestorBlockHash: hashOf(9),
          detectedAt: new Date().toISOString(),
        },
      },
    };
    expect(
      headArguments(
        3,
        changesOf([activity(ALICE, ref(10, 0, undefined), "1"), removal(ALICE, ref(10, 0, undefined), 9)]),
      ),
    ).toBeUndefined();
    const [partition, json] = headArguments(3, changesOf([activity(BOB, ref(10, 1, undefined), "1"), seen, unseen]))!;
    const ops = JSON.parse(json) as string[][];
    expect(partition).toBe("3");
    expect(ops.map((op) => op[0])).toEqual(["b", "u"]);
    expect(ops[1]![1]).toBe(ops[0]![2]);
    expect(JSON.parse(ops[0]![2]!)).toEqual({
      chainId: "964",
      blockNumber: "10",
      blockHash: hashOf(10),
      timestamp: new Date((T0 + 120) * 1_000).toISOString(),
    });
  });

  it("skips a record that does not decode instead of stopping", () => {
    const broken = {
      ...records([activity(ALICE, ref(1, 0, undefined), "1")])[0]!,
      value: Buffer.from([0xff, 0xff, 0xff]),
    };
    expect(decodeAccountsBatch([broken], log)).toEqual([]);
  });
});

describe("accounts fold: rewards", () => {
  it("adds a balance's rewards as reward transactions at the start of their block, once, and takes them back with it", () => {
    const HOTKEY = `0x${"c3".repeat(32)}`;
    const rewards = [
      { netuid: 0, hotkey: account(HOTKEY), alphaNalpha: "-2", taoValueRao: "-2" },
      { netuid: 7, hotkey: account(HOTKEY), alphaNalpha: "150", taoValueRao: "75" },
    ];
    const snapshot: NetworkChainEvent = {
      event: {
        $case: "accountBalanceSnapshot",
        value: {
          ref: { ...ref(12, 0, undefined), txHash: "" },
          account: account(ALICE),
          balance: { freeRao: "310", reservedRao: "0", frozenRao: "0", positions: [], rewards },
        },
      },
    };
    // The same block's activity carries the same balance, rewards included.
    const withActivity = activity(ALICE, ref(12, 4, 2), "310");
    if (withActivity.event?.$case === "accountActivity") withActivity.event.value.balanceAfter!.rewards = rewards;
    const applied = foldAccounts(
      empty(),
      changesOf([activity(ALICE, ref(10, 0, undefined), "300"), snapshot, withActivity]),
    );
    const txs = membersOf(applied, accountsKeys.txs(ALICE));
    expect(txs.map((member) => member.split("|")[2])).toEqual([
      "10-0-0",
      `12-reward-0-${HOTKEY}`,
      `12-reward-7-${HOTKEY}`,
      "12-4-2",
    ]);
    expect(txs[1]!.startsWith(`000000000012-000000-0000000|${hashOf(12)}|`)).toBe(true);
    const detail = (member: string) =>
      AccountActivity.decode(Buffer.from(applied.details.get(`${accountsKeys.tx(ALICE)}\u0000${member}`)!, "base64"));
    expect(detail(txs[2]!)).toMatchObject({
      type: TransactionType.TRANSACTION_TYPE_REWARD,
      direction: Direction.DIRECTION_IN,
      netuid: 7,
      hotkey: { publicKey: HOTKEY },
      alphaNalpha: "150",
      amountRao: "75",
      source: TransactionSource.TRANSACTION_SOURCE_STORAGE,
      to: { publicKey: ALICE },
    });
    // A loss: direction out, absolute amounts.
    expect(detail(txs[1]!)).toMatchObject({ direction: Direction.DIRECTION_OUT, alphaNalpha: "2", amountRao: "2" });
    // The balance point at the epoch block carries them too.
    const point = membersOf(applied, accountsKeys.points(ALICE)).at(-1)!;
    expect(AccountBalance.decode(Buffer.from(parsePointMember(point)!.balance, "base64")).rewards).toHaveLength(2);
    // The block goes: its snapshot's removal takes the rewards, its activity's removal the activity.
    const removed = removal(ALICE, { ...ref(12, 0, undefined), txHash: "" }, 11);
    if (removed.event?.$case === "chainEventRemoved") removed.event.value.removedEventType = "AccountBalanceSnapshot";
    const undone = foldAccounts(applied, changesOf([removed, removal(ALICE, ref(12, 4, 2), 11)]));
    expect(membersOf(undone, accountsKeys.txs(ALICE)).map((member) => member.split("|")[2])).toEqual(["10-0-0"]);
    expect(membersOf(undone, accountsKeys.points(ALICE)).map(freeOf)).toEqual(["300"]);
  });
});
