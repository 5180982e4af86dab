import { TransactionType } from "@platform/proto/common/v1/network";
import { accountFromEvmAddress, accountFromPublicKey } from "@platform/subtensor";
import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import type { RuntimeEvent } from "../node/runtimeEvent.js";
import { decodeNativeActivities } from "./activities.js";

// Event values shaped as dedot decodes them: AccountId32 as `{ raw }`, integers as bigint or number.
const key = (byte: number): Hex => `0x${byte.toString(16).padStart(2, "0").repeat(32)}`;
const id = (byte: number) => ({ raw: key(byte) });
const [alice, bob, hotA, hotB] = [1, 2, 3, 4].map(key) as [Hex, Hex, Hex, Hex];
const h160 = "0x00000000000000000000000000000000000000aa" as const;
const h160To = "0x00000000000000000000000000000000000000bb" as const;

let index = 0;
const ev = (extrinsicIndex: number | undefined, pallet: string, name: string, data: unknown): RuntimeEvent => ({
  index: index++,
  ...(extrinsicIndex === undefined ? {} : { extrinsicIndex }),
  pallet,
  name,
  data,
});
const fee = (extrinsic: number, who: Hex, actualFee: bigint) =>
  ev(extrinsic, "TransactionPayment", "TransactionFeePaid", { who: { raw: who }, actualFee, tip: 0n });
const ok = (extrinsic: number) => ev(extrinsic, "System", "ExtrinsicSuccess", { dispatchInfo: {} });

function block(events: RuntimeEvent[]) {
  return { number: 7n, extrinsicHashes: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => key(0xe0 + n)), events };
}

describe("decodeNativeActivities: transfers and stake", () => {
  it("reads a transfer with its fee, extrinsic and event", () => {
    index = 0;
    const [transfer] = decodeNativeActivities(
      block([
        ev(0, "System", "ExtrinsicSuccess", {}),
        ev(1, "Balances", "Withdraw", { who: id(1), amount: 135_263n }),
        ev(1, "Balances", "Transfer", { from: id(1), to: id(2), amount: 5_000_000_000n }),
        ev(1, "Balances", "Deposit", { who: id(1), amount: 0n }),
        fee(1, alice, 135_263n),
        ok(1),
      ]),
    );
    expect(transfer).toMatchObject({
      activityId: "7-1-2",
      txHash: key(0xe1),
      txIndex: 1,
      type: TransactionType.TRANSACTION_TYPE_TRANSFER,
      success: true,
      from: accountFromPublicKey(alice),
      to: accountFromPublicKey(bob),
      amountRao: 5_000_000_000n,
      feeRao: 135_263n,
      parties: [
        { account: accountFromPublicKey(alice), direction: "out" },
        { account: accountFromPublicKey(bob), direction: "in" },
      ],
      substrate: { eventIndex: 2, eventName: "Balances.Transfer" },
    });
  });

  it("reads stake added, removed, moved within a subnet and across subnets", () => {
    index = 0;
    const activities = decodeNativeActivities(
      block([
        ev(1, "SubtensorModule", "StakeAdded", [id(1), id(3), 100_000_000_000n, 50_000_000_000n, 2]),
        ok(1),
        ev(2, "SubtensorModule", "StakeRemoved", [id(1), id(3), 10_000_000_000n, 4_000_000_000n, 2]),
        ok(2),
        ev(3, "SubtensorModule", "StakeMoved", [id(1), id(3), 2, id(4), 2]),
        ok(3),
        ev(4, "SubtensorModule", "StakeMoved", [id(1), id(3), 2, id(4), 3, 9n]),
        ok(4),
      ]),
    );
    expect(activities.map((activity) => activity.type)).toEqual([
      TransactionType.TRANSACTION_TYPE_STAKE_ADD,
      TransactionType.TRANSACTION_TYPE_STAKE_REMOVE,
      TransactionType.TRANSACTION_TYPE_STAKE_MOVE,
      TransactionType.TRANSACTION_TYPE_STAKE_SWAP,
    ]);
    expect(activities[0]).toMatchObject({
      amountRao: 100_000_000_000n,
      alphaNalpha: 50_000_000_000n,
      netuid: 2,
      hotkey: accountFromPublicKey(hotA),
      parties: [{ direction: "out" }],
      substrate: { effectivePriceTao: "2" },
    });
    expect(activities[1]).toMatchObject({ parties: [{ direction: "in" }], substrate: { effectivePriceTao: "2.5" } });
    expect(activities[2]!.amountRao).toBeUndefined();
    expect(activities[3]!.amountRao).toBe(9n);
    expect(activities[3]!.stakeTouches).toEqual([
      { coldkey: accountFromPublicKey(alice), hotkey: accountFromPublicKey(hotA), netuid: 2 },
      { coldkey: accountFromPublicKey(alice), hotkey: accountFromPublicKey(hotB), netuid: 3 },
    ]);
  });

  it("folds a move's internal stake legs into the move", () => {
    index = 0;
    const activities = decodeNativeActivities(
      block([
        ev(1, "SubtensorModule", "StakeAdded", [id(1), id(4), 3_000n, 1_000n, 2]),
        ev(1, "SubtensorModule", "StakeMoved", [id(1), id(3), 2, id(4), 2]),
        fee(1, alice, 10n),
        ok(1),
      ]),
    );
    expect(activities).toHaveLength(1);
    expect(activities[0]).toMatchObject({
      type: TransactionType.TRANSACTION_TYPE_STAKE_MOVE,
      amountRao: 3_000n,
      alphaNalpha: 1_000n,
      feeRao: 10n,
      hotkey: accountFromPublicKey(hotA),
    });
  });
});

describe("decodeNativeActivities: registrations, EVM executions, failures and fees", () => {
  it("reads registrations as the signer's, with what they burned or locked", () => {
    index = 0;
    const [neuron, subnet] = decodeNativeActivities(
      block([
        ev(1, "Balances", "Withdraw", { who: id(2), amount: 1_000_000_000n }),
        ev(1, "SubtensorModule", "NeuronRegistered", [2, 1, id(4)]),
        fee(1, bob, 0n),
        ok(1),
        ev(2, "Balances", "Withdraw", { who: id(1), amount: 2_000_000_000n }),
        ev(2, "SubtensorModule", "NetworkAdded", [3, 1]),
        fee(2, alice, 0n),
        ok(2),
        // added by a sudo call: not an account's activity
        ev(3, "SubtensorModule", "NetworkAdded", [4, 1]),
        ok(3),
      ]),
    );
    expect(neuron).toMatchObject({
      type: TransactionType.TRANSACTION_TYPE_NEURON_REGISTER,
      from: accountFromPublicKey(bob),
      netuid: 2,
      hotkey: accountFromPublicKey(hotB),
      amountRao: 1_000_000_000n,
    });
    expect(subnet).toMatchObject({
      type: TransactionType.TRANSACTION_TYPE_SUBNET_REGISTER,
      from: accountFromPublicKey(alice),
      netuid: 3,
      amountRao: 2_000_000_000n,
    });
  });

  it("reads an EVM execution with its H160 sender and names the H160 on its value transfer", () => {
    index = 0;
    const from = accountFromEvmAddress(h160);
    const to = accountFromEvmAddress(h160To);
    const activities = decodeNativeActivities(
      block([
        // Gas withdrawn at the full price, the value moved, the unused gas refunded: no TransactionFeePaid.
        ev(1, "Balances", "Withdraw", { who: { raw: from.publicKey }, amount: 300_000n }),
        ev(1, "Balances", "Transfer", { from: { raw: from.publicKey }, to: { raw: to.publicKey }, amount: 1_000n }),
        ev(1, "Balances", "Deposit", { who: { raw: from.publicKey }, amount: 57_661n }),
        ev(1, "Balances", "Deposit", { who: { raw: id(9) }, amount: 0n }),
        ev(1, "Ethereum", "Executed", {
          from: h160,
          to: h160To,
          transactionHash: key(0xab),
          exitReason: { type: "Succeed", value: { type: "Stopped" } },
          extraData: "0x",
        }),
        ok(1),
      ]),
    );
    expect(activities.map((activity) => activity.type)).toEqual([
      TransactionType.TRANSACTION_TYPE_TRANSFER,
      TransactionType.TRANSACTION_TYPE_EVM_TX,
    ]);
    expect(activities[0]!.from.evmH160).toBe(from.evmH160);
    expect(activities[0]!.feeRao).toBe(0n);
    // The fee is what the sender's mapped account paid for gas, on the execution.
    expect(activities[1]).toMatchObject({
      from,
      to,
      success: true,
      feeRao: 242_339n,
      txHash: key(0xab),
      txIndex: 1,
      substrate: { extrinsicHash: key(0xe1) },
    });
  });

  it("keeps a failed extrinsic's fee, an unknown event and a known event of another shape, never throwing", () => {
    index = 0;
    const activities = decodeNativeActivities(
      block([
        fee(1, alice, 99n),
        ev(1, "System", "ExtrinsicFailed", { dispatchError: { type: "Module" } }),
        ev(2, "Proxy", "ProxyAdded", { delegator: id(1), delegatee: id(2), proxyType: "Any", delay: 0 }),
        ok(2),
        ev(3, "SubtensorModule", "StakeAdded", [id(1), id(3), 5n]),
        ok(3),
        ev(4, "SubtensorModule", "NetworkRateLimitSet", [0n]),
        ok(4),
        ev(undefined, "SubtensorModule", "Unknown", "garbage"),
      ]),
    );
    expect(activities).toHaveLength(3);
    expect(activities[0]).toMatchObject({
      type: TransactionType.TRANSACTION_TYPE_OTHER,
      success: false,
      feeRao: 99n,
      substrate: { eventName: "System.ExtrinsicFailed" },
    });
    expect(activities[1]).toMatchObject({
      type: TransactionType.TRANSACTION_TYPE_OTHER,
      substrate: { eventName: "Proxy.ProxyAdded" },
    });
    expect(activities[1]!.parties.map((party) => party.account.publicKey)).toEqual([alice, bob]);
    expect(activities[2]).toMatchObject({
      type: TransactionType.TRANSACTION_TYPE_OTHER,
      substrate: { eventName: "SubtensorModule.StakeAdded" },
    });
  });

  it("charges an extrinsic's fee once, on the payer's first activity", () => {
    index = 0;
    const activities = decodeNativeActivities(
      block([
        ev(1, "Balances", "Transfer", { from: id(1), to: id(2), amount: 1n }),
        ev(1, "Balances", "Transfer", { from: id(1), to: id(3), amount: 2n }),
        fee(1, alice, 500n),
        ok(1),
      ]),
    );
    expect(activities.map((activity) => activity.feeRao)).toEqual([500n, 0n]);
  });
});
