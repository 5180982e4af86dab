import { Finality } from "@platform/proto/common/v1/common";
import { PoolMechanism } from "@platform/proto/common/v1/network";
import { describe, expect, it } from "vitest";
import type { NativePool } from "../node/nativePool.js";
import type { RuntimeEvent } from "../node/runtimeEvent.js";
import { nativePoolPrice, nativePoolRecords, nextNetuids, subnetRemovedRecords } from "./pools.js";

const HASH = "0x00000000000000000000000000000000000000000000000000000000000000c7";
const ref = {
  chainId: "945",
  blockNumber: "12",
  blockHash: HASH,
  parentHash: "0x00000000000000000000000000000000000000000000000000000000000000c6",
  blockTimestamp: "2026-01-01T00:00:12.000Z",
  finality: Finality.FINALITY_LATEST,
};
const U64_MAX = 2n ** 64n - 1n;

function pool(overrides: Partial<NativePool> = {}): NativePool {
  return {
    netuid: 1,
    mechanism: 1,
    taoInRao: 1_000_000_000n,
    alphaInNalpha: 3_000_000_000n,
    alphaOutNalpha: 500_000_000n,
    ...overrides,
  };
}

describe("nativePoolPrice", () => {
  it("prices root at 1 whatever its reserves hold", () => {
    // Root's reserves are the staked TAO: dividing them would give a price the chain never quotes.
    expect(
      nativePoolPrice(pool({ netuid: 0, mechanism: 1, taoInRao: 7_000_000_000n, alphaInNalpha: 2_000_000_000n })),
    ).toBe("1");
    expect(nativePoolPrice(pool({ netuid: 0, mechanism: 0, alphaInNalpha: 0n }))).toBe("1");
  });

  it("prices a stable pool at 1, even with an empty alpha reserve", () => {
    expect(
      nativePoolPrice(pool({ netuid: 4, mechanism: 0, taoInRao: 9_000_000_000n, alphaInNalpha: 1_000_000_000n })),
    ).toBe("1");
    expect(nativePoolPrice(pool({ netuid: 4, mechanism: 0, alphaInNalpha: 0n }))).toBe("1");
  });

  it("prices a dynamic pool with an empty alpha reserve at 0, not as a division by zero", () => {
    expect(nativePoolPrice(pool({ taoInRao: 5_000_000_000n, alphaInNalpha: 0n }))).toBe("0");
  });

  it.each([
    // A freshly registered subnet on raonet: all the lock in TAO, one nano-alpha in.
    { tao: 13_684_210_525n, alphaIn: 1n, price: "13684210525" },
    { tao: 1n, alphaIn: 3n, price: "0.333333333" },
    // Truncated, never rounded up: the chain's `price x 1e9 -> u64` drops the rest.
    { tao: 2n, alphaIn: 3n, price: "0.666666666" },
    { tao: 1_999_999_999_999n, alphaIn: 1_000_000_000_000n, price: "1.999999999" },
    // Trailing zeros and a bare point are trimmed, as formatRatio prints.
    { tao: 3_000_000_000n, alphaIn: 2_000_000_000n, price: "1.5" },
    { tao: 6_000_000_000n, alphaIn: 3_000_000_000n, price: "2" },
    { tao: 1_000_000_000n, alphaIn: 8_000_000_000n, price: "0.125" },
    // Below one rao per alpha the nine decimals hold nothing.
    { tao: 1n, alphaIn: 10_000_000_000n, price: "0" },
    { tao: 1n, alphaIn: 1_000_000_000n, price: "0.000000001" },
    // u64 reserves stay exact (a float would round them).
    { tao: U64_MAX, alphaIn: 1n, price: "18446744073709551615" },
    { tao: U64_MAX, alphaIn: U64_MAX, price: "1" },
  ])(
    "prices a dynamic pool at SubnetTAO / SubnetAlphaIn to nine decimals: $tao / $alphaIn = $price",
    ({ tao, alphaIn, price }) => {
      expect(nativePoolPrice(pool({ netuid: 3, mechanism: 1, taoInRao: tao, alphaInNalpha: alphaIn }))).toBe(price);
    },
  );
});

describe("nativePoolRecords", () => {
  it("publishes nothing for a block without pools", () => {
    expect(nativePoolRecords([], { chainId: 945, ref, events: [] })).toEqual([]);
  });

  it("makes one PoolSnapshot per pool, in order, keyed and identified by netuid and block", () => {
    const pools = [
      pool({ netuid: 0, mechanism: 0, taoInRao: 50_000_000_000n, alphaInNalpha: 0n, alphaOutNalpha: 0n }),
      pool({ netuid: 1, mechanism: 1, taoInRao: 1n, alphaInNalpha: 3n, alphaOutNalpha: 4n }),
      // Both reserves at u64::MAX: the issuance exceeds a u64 and must still add up exactly.
      pool({ netuid: 12, mechanism: 1, taoInRao: 2n, alphaInNalpha: U64_MAX, alphaOutNalpha: U64_MAX }),
    ];
    const records = nativePoolRecords(pools, { chainId: 945, ref, events: [] });

    expect(records.map((record) => [record.topic, record.key, record.eventType, record.eventId])).toEqual([
      ["chain.network.v1", "netuid:0", "PoolSnapshot", `945:${HASH}:PoolSnapshot:netuid:0`],
      ["chain.network.v1", "netuid:1", "PoolSnapshot", `945:${HASH}:PoolSnapshot:netuid:1`],
      ["chain.network.v1", "netuid:12", "PoolSnapshot", `945:${HASH}:PoolSnapshot:netuid:12`],
    ]);
    for (const record of records) expect(record.ref).toBe(ref);

    // toStrictEqual: a movingPriceTao or volumeTotalRao key, even undefined, would fail it. No
    // stake events: every pool swapped nothing in the block.
    expect(records.map((record) => record.payload)).toStrictEqual([
      {
        event: {
          $case: "poolSnapshot",
          value: {
            ref,
            netuid: 0,
            mechanism: PoolMechanism.POOL_MECHANISM_STABLE,
            taoInRao: "50000000000",
            alphaInNalpha: "0",
            alphaOutNalpha: "0",
            alphaIssuanceNalpha: "0",
            priceTao: "1",
            blockVolumeRao: "0",
            blockFlow: { buyVolumeRao: "0", sellVolumeRao: "0", buys: 0, sells: 0, buyers: [], sellers: [] },
          },
        },
      },
      {
        event: {
          $case: "poolSnapshot",
          value: {
            ref,
            netuid: 1,
            mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
            taoInRao: "1",
            alphaInNalpha: "3",
            alphaOutNalpha: "4",
            alphaIssuanceNalpha: "7",
            priceTao: "0.333333333",
            blockVolumeRao: "0",
            blockFlow: { buyVolumeRao: "0", sellVolumeRao: "0", buys: 0, sells: 0, buyers: [], sellers: [] },
          },
        },
      },
      {
        event: {
          $case: "poolSnapshot",
          value: {
            ref,
            netuid: 12,
            mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
            taoInRao: "2",
            alphaInNalpha: U64_MAX.toString(),
            alphaOutNalpha: U64_MAX.toString(),
            alphaIssuanceNalpha: "36893488147419103230",
            priceTao: "0",
            blockVolumeRao: "0",
            blockFlow: { buyVolumeRao: "0", sellVolumeRao: "0", buys: 0, sells: 0, buyers: [], sellers: [] },
          },
        },
      },
    ]);
  });

  it("carries the TAO each pool swapped in the block: its stake and unstake events' TAO amounts, both adding", () => {
    const account = (byte: number) => `0x${byte.toString(16).padStart(64, "0")}`;
    const stake = (
      name: string,
      tao: bigint,
      netuid: number,
      index: number,
      pallet = "SubtensorModule",
    ): RuntimeEvent => ({
      index,
      extrinsicIndex: 1,
      pallet,
      name,
      data: [account(1), account(2), tao, 7n, netuid],
    });
    // Amounts beyond 2^53 stay exact.
    const big = 2n ** 60n + 1n;
    const events = [
      stake("StakeAdded", 1_000_000_000n, 1, 0),
      stake("StakeRemoved", 250_000_000n, 1, 1),
      stake("StakeAdded", big, 12, 2),
      stake("StakeAdded", big, 12, 3),
      // Not a swap of this block's pools: another pallet's event, another event, another shape.
      stake("StakeAdded", 5n, 1, 4, "Other"),
      stake("StakeMoved", 5n, 1, 5),
      { index: 6, pallet: "SubtensorModule", name: "StakeAdded", data: [account(1), account(2), 5n] },
    ];
    const pools = [pool({ netuid: 0, mechanism: 0 }), pool({ netuid: 1 }), pool({ netuid: 12 })];
    const records = nativePoolRecords(pools, { chainId: 945, ref, events });
    expect(
      records.map((record) =>
        record.payload.event?.$case === "poolSnapshot" ? record.payload.event.value : undefined,
      ),
    ).toMatchObject([
      { netuid: 0, blockVolumeRao: "0" },
      { netuid: 1, blockVolumeRao: "1250000000" },
      { netuid: 12, blockVolumeRao: (2n * big).toString() },
    ]);
  });

  it("names a pool's record by block, so the same pool in another block is another record", () => {
    const other = { ...ref, blockHash: "0x00000000000000000000000000000000000000000000000000000000000000d8" };
    const [first] = nativePoolRecords([pool()], { chainId: 945, ref, events: [] });
    const [second] = nativePoolRecords([pool()], { chainId: 945, ref: other, events: [] });
    const [elsewhere] = nativePoolRecords([pool()], { chainId: 946, ref, events: [] });
    expect(new Set([first!.eventId, second!.eventId, elsewhere!.eventId]).size).toBe(3);
    // The same pool read again at the same block (a restart re-reading it) is the same record.
    expect(nativePoolRecords([pool()], { chainId: 945, ref, events: [] })[0]!.eventId).toBe(first!.eventId);
  });

  it("maps an unknown mechanism to unspecified, and prices it as the runtime does anything not stable", () => {
    const [record] = nativePoolRecords([pool({ netuid: 2, mechanism: 2, taoInRao: 1n, alphaInNalpha: 4n })], {
      chainId: 945,
      ref,
      events: [],
    });
    expect(record!.payload.event).toMatchObject({
      value: { mechanism: PoolMechanism.POOL_MECHANISM_UNSPECIFIED, priceTao: "0.25" },
    });
  });
});

describe("nativePoolRecords: the block's order flow", () => {
  it("splits each pool's swaps into buys (StakeAdded) and sells (StakeRemoved): TAO, counts and distinct coldkeys", () => {
    const account = (byte: number) => `0x${byte.toString(16).padStart(64, "0")}`;
    const event = (name: string, coldkey: unknown, tao: bigint, netuid: number, index: number): RuntimeEvent => ({
      index,
      extrinsicIndex: 1,
      pallet: "SubtensorModule",
      name,
      data: [coldkey, account(0xee), tao, 7n, netuid],
    });
    const big = 2n ** 60n + 1n;
    const events = [
      // Coldkey 0xAB buys twice on netuid 1 (upper-case hex and dedot's `{ raw }`: one trader), 2 buys once.
      event("StakeAdded", `0x${"AB".padStart(64, "0")}`, 1_000_000_000n, 1, 0),
      event("StakeAdded", { raw: account(0xab) }, big, 1, 1),
      event("StakeAdded", account(2), 5n, 1, 2),
      // 2 also sells on netuid 1, and 3 sells on netuid 12.
      event("StakeRemoved", account(2), 250_000_000n, 1, 3),
      event("StakeRemoved", account(3), 9n, 12, 4),
      // Not a trader: a coldkey that is no AccountId32 is not counted, nor is its TAO.
      event("StakeAdded", "alice", 1n, 1, 5),
    ];
    const records = nativePoolRecords([pool({ netuid: 0, mechanism: 0 }), pool({ netuid: 1 }), pool({ netuid: 12 })], {
      chainId: 945,
      ref,
      events,
    });
    const values = records.map((record) =>
      record.payload.event?.$case === "poolSnapshot" ? record.payload.event.value : undefined,
    );
    expect(values).toMatchObject([
      {
        netuid: 0,
        blockVolumeRao: "0",
        blockFlow: { buyVolumeRao: "0", sellVolumeRao: "0", buys: 0, sells: 0, buyers: [], sellers: [] },
      },
      {
        netuid: 1,
        blockVolumeRao: (1_250_000_005n + big).toString(),
        blockFlow: {
          buyVolumeRao: (1_000_000_005n + big).toString(),
          sellVolumeRao: "250000000",
          buys: 3,
          sells: 1,
          buyers: [account(2), account(0xab)],
          sellers: [account(2)],
        },
      },
      {
        netuid: 12,
        blockVolumeRao: "9",
        blockFlow: { buyVolumeRao: "0", sellVolumeRao: "9", buys: 0, sells: 1, buyers: [], sellers: [account(3)] },
      },
    ]);
  });
});

describe("nextNetuids", () => {
  const event = (name: string, data: unknown, pallet = "SubtensorModule"): RuntimeEvent => ({
    index: 0,
    pallet,
    name,
    data,
  });
  it("adds registered subnets and drops removed ones, sorted, ignoring other events and shapes", () => {
    const events = [
      event("NetworkAdded", [5, 1]),
      event("NetworkRemoved", 2),
      event("NetworkAdded", [9, 0], "Other"),
      event("NetworkAdded", ["x"]),
      event("StakeAdded", [1]),
    ];
    expect(nextNetuids([0, 1, 2, 3], events)).toEqual([0, 1, 3, 5]);
    expect(nextNetuids([0, 1], [])).toEqual([0, 1]);
  });
});

describe("subnetRemovedRecords", () => {
  it("publishes one SubnetRemoved per subnet of the parent's set the block no longer has, keyed with the subnet", () => {
    const records = subnetRemovedRecords([0, 1, 2, 128], [0, 2, 5], { chainId: 945, ref });
    expect(
      records.map((record) => [
        record.key,
        record.eventType,
        record.payload.event?.$case === "subnetRemoved" ? record.payload.event.value.netuid : undefined,
      ]),
    ).toEqual([
      ["netuid:1", "SubnetRemoved", 1],
      ["netuid:128", "SubnetRemoved", 128],
    ]);
    expect(subnetRemovedRecords([0, 1], [0, 1, 2], { chainId: 945, ref })).toEqual([]);
  });
});
