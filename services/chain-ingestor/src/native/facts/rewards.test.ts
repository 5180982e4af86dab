import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import type { RuntimeEvent } from "../node/runtimeEvent.js";
import type { HolderEntry, HolderState, HotkeyPool, SubnetHolders } from "./holders.js";
import { type BlockStakeFlows, decideRewards, mulByPrice, positionKey, stakeFlowsOf } from "./rewards.js";

const key = (byte: number) => `0x${byte.toString(16).padStart(2, "0").repeat(32)}` as Hex;
const [HOT_A, HOT_B, HOT_C] = [key(0xa1), key(0xb1), key(0xc1)];
const [C1, C2, C3, C4, C6, C7] = [key(0x01), key(0x02), key(0x03), key(0x04), key(0x06), key(0x07)];

/** Share amounts as U64F64 bits (whole shares). */
const pool = (alpha: bigint, shares: bigint): HotkeyPool => ({
  alpha,
  sharesBits: shares << 64n,
  arithmetic: "u64f64",
});
const entry = (hotkey: Hex, coldkey: Hex, shares: bigint): [string, HolderEntry] => [
  `${hotkey}${coldkey}`,
  { hotkey, coldkey, shareBits: shares << 64n },
];
const subnet = (entries: [string, HolderEntry][], pools: [Hex, HotkeyPool][]): SubnetHolders => ({
  entries: new Map(entries),
  pools: new Map(pools),
});
const state = (subnets: [number, SubnetHolders][]): HolderState => ({
  specVersion: 218,
  subnets: new Map(subnets),
  parents: new Map(),
  changed: new Set(subnets.map(([netuid]) => netuid)),
});
const noFlows: BlockStakeFlows = {
  flows: new Map(),
  unexplained: new Set(),
  unexplainedColdkeys: new Set(),
  undecidable: false,
};

// Subnet 1's epoch pays 25 % on hotkeys A and C (exact in the share pool's binary fixed point); B's
// pool is not paid. In the same block C2 stakes 125 alpha on A (100 shares at 1.25), C3 opens a
// position on A with 50 alpha (40 shares), and C6 unstakes 125 alpha (100 shares) from C.
const root = subnet([entry(HOT_A, C1, 5n)], [[HOT_A, pool(5n, 5n)]]);
const parent = state([
  [0, root],
  [
    1,
    subnet(
      [
        entry(HOT_A, C1, 600n),
        entry(HOT_A, C2, 400n),
        entry(HOT_B, C4, 70n),
        entry(HOT_C, C6, 300n),
        entry(HOT_C, C7, 200n),
      ],
      [
        [HOT_A, pool(1_000n, 1_000n)],
        [HOT_B, pool(70n, 70n)],
        [HOT_C, pool(500n, 500n)],
      ],
    ),
  ],
]);
const after = state([
  [0, root],
  [
    1,
    subnet(
      [
        entry(HOT_A, C1, 600n),
        entry(HOT_A, C2, 500n),
        entry(HOT_A, C3, 40n),
        entry(HOT_B, C4, 70n),
        entry(HOT_C, C6, 200n),
        entry(HOT_C, C7, 200n),
      ],
      [
        [HOT_A, pool(1_425n, 1_140n)],
        [HOT_B, pool(70n, 70n)],
        [HOT_C, pool(500n, 400n)],
      ],
    ),
  ],
]);
const flows: BlockStakeFlows = {
  ...noFlows,
  flows: new Map([
    [positionKey(1, HOT_A, C2), 125n],
    [positionKey(1, HOT_A, C3), 50n],
    [positionKey(1, HOT_C, C6), -125n],
  ]),
};
const priceOf = (netuid: number) => (netuid === 1 ? "0.5" : undefined);

describe("decideRewards", () => {
  it("gives each position its change at the epoch block less the block's stakes plus its unstakes, valued at the pool price", () => {
    const rewards = decideRewards({ parent, state: after, epochs: [1], stakes: flows, priceOf });
    const of = (coldkey: Hex) =>
      rewards
        .get(coldkey)
        ?.map((reward) => [reward.netuid, reward.hotkey?.publicKey, reward.alphaNalpha, reward.taoValueRao]);
    expect(of(C1)).toEqual([[1, HOT_A, "150", "75"]]);
    // 625 - 400 - 125 staked.
    expect(of(C2)).toEqual([[1, HOT_A, "100", "50"]]);
    // 250 - 300 + 125 unstaked; 37.5 rao rounded toward zero.
    expect(of(C6)).toEqual([[1, HOT_C, "75", "37"]]);
    expect(of(C7)).toEqual([[1, HOT_C, "50", "25"]]);
  });

  it("publishes no zero reward and none for a position opened in the block", () => {
    const rewards = decideRewards({ parent, state: after, epochs: [1], stakes: flows, priceOf });
    // B's pool was not paid: C4 earned nothing.
    expect(rewards.has(C4)).toBe(false);
    // C3's position did not exist when the epoch ran.
    expect(rewards.has(C3)).toBe(false);
    expect([...rewards.keys()].sort()).toEqual([C1, C2, C6, C7]);
  });

  it("decides nothing outside an epoch, nor where the block's events cannot explain the change", () => {
    expect(decideRewards({ parent, state: after, epochs: [], stakes: flows, priceOf }).size).toBe(0);
    expect(
      decideRewards({ parent, state: after, epochs: [1], stakes: { ...flows, undecidable: true }, priceOf }).size,
    ).toBe(0);
    const moved = decideRewards({
      parent,
      state: after,
      epochs: [1],
      stakes: { ...flows, unexplained: new Set([positionKey(1, HOT_A, C2)]), unexplainedColdkeys: new Set([C6]) },
      priceOf,
    });
    expect([...moved.keys()].sort()).toEqual([C1, C7]);
    // Without flows, C2's stake would have been counted as income: the flows are what separates them.
    expect(
      decideRewards({ parent, state: after, epochs: [1], stakes: noFlows, priceOf }).get(C2)?.[0]?.alphaNalpha,
    ).toBe("225");
  });

  it("values a subnet without a known price at 0 and root 1:1", () => {
    const paidRoot = state([
      [0, subnet([entry(HOT_A, C1, 5n)], [[HOT_A, pool(10n, 5n)]])],
      [1, after.subnets.get(1)!],
    ]);
    const rewards = decideRewards({ parent, state: paidRoot, epochs: [1], stakes: flows, priceOf: () => undefined });
    expect(rewards.get(C1)?.map((reward) => [reward.netuid, reward.alphaNalpha, reward.taoValueRao])).toEqual([
      [0, "5", "5"],
      [1, "150", "0"],
    ]);
  });
});

describe("stakeFlowsOf", () => {
  const ev = (index: number, name: string, data: unknown): RuntimeEvent => ({
    index,
    extrinsicIndex: 1,
    pallet: "SubtensorModule",
    name,
    data,
  });
  it("sums StakeAdded and StakeRemoved alpha per position and leaves moved positions unexplained", () => {
    const stakes = stakeFlowsOf([
      ev(1, "StakeAdded", [C1, HOT_A, 100n, 50n, 1]),
      ev(2, "StakeRemoved", [C1, HOT_A, 10n, 4n, 1]),
      ev(3, "StakeMoved", [C2, HOT_A, 1, HOT_B, 2]),
      ev(4, "WeightsSet", [1, 0]),
      { index: 5, pallet: "Balances", name: "Transfer", data: {} },
    ]);
    expect([...stakes.flows]).toEqual([[positionKey(1, HOT_A, C1), 46n]]);
    expect([...stakes.unexplained].sort()).toEqual([positionKey(1, HOT_A, C2), positionKey(2, HOT_B, C2)].sort());
    expect(stakes.undecidable).toBe(false);
  });
  it("is undecidable on an event the holder states cannot bound, and distrusts a coldkey whose stake event does not decode", () => {
    expect(stakeFlowsOf([ev(1, "HotkeySwapped", [C1, HOT_A, HOT_B])]).undecidable).toBe(true);
    expect([...stakeFlowsOf([ev(1, "StakeAdded", [C1, HOT_A, 5n])]).unexplainedColdkeys]).toEqual([C1]);
  });
});

describe("mulByPrice", () => {
  it("rounds toward zero at nine decimals", () => {
    expect(mulByPrice(3n, "0.333333333")).toBe(0n);
    expect(mulByPrice(1_000_000_000n, "0.123456789")).toBe(123_456_789n);
    expect(mulByPrice(-7n, "0.5")).toBe(-3n);
    expect(mulByPrice(10n, "2")).toBe(20n);
  });
});
