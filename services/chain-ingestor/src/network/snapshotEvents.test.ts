import { accountFromPublicKey } from "@platform/subtensor";
import { Finality } from "@platform/proto/common/v1/common";
import { HolderCoverage, PoolMechanism } from "@platform/proto/common/v1/network";
import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import type { NetworkState, SubnetState } from "./networkState.js";
import { holderChunks, snapshotRecords } from "./snapshotEvents.js";

const HASH = "0x00000000000000000000000000000000000000000000000000000000000000b1" as Hex;
const ref = {
  chainId: "945",
  blockNumber: "10",
  blockHash: HASH,
  parentHash: "0x00",
  blockTimestamp: "2026-01-01T00:00:00.000Z",
  finality: Finality.FINALITY_LATEST,
};
const key = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;

function subnet(netuid: number, overrides: Partial<SubnetState> = {}): SubnetState {
  return {
    netuid,
    pool: {
      mechanism: netuid === 0 ? 0 : 1,
      taoIn: 1_000_000_000_000n * BigInt(netuid + 1),
      alphaIn: 3_000_000_000_000n,
      alphaOut: 500_000_000n,
      alphaIssuance: 3_000_500_000_000n,
      // 0.333333333 TAO per alpha, as the chain scales it: truncated to 9 dp, then × 1e9.
      price: 333_333_333_000_000_000n,
      movingPrice: 12_345_678_901_234_567n,
      volume: 42n,
    },
    emission: { taoInEmission: netuid === 0 ? 0n : 500_000_000n, alphaInEmission: 1_500_000_000n, alphaOutEmission: 1_000_000_000n },
    settings: { registeredAtBlock: 5n, networkRegistrationAllowed: true, liquidAlphaEnabled: true, alphaValues: [45_875, 58_982] },
    neurons: [
      {
        uid: 0,
        hotkey: key(1),
        coldkey: key(2),
        validatorPermit: true,
        active: true,
        dividends: 65_535,
        vtrust: 32_768,
        incentive: 0,
        consensus: 11_796,
        emission: 77n,
        lastUpdate: 9n,
        alphaStake: 900n,
        rootStake: 10n,
      },
    ],
    ...overrides,
  };
}

const state: NetworkState = {
  rootNetuid: 0,
  taoWeight: 971_718_665_099_567_868n,
  subnets: [subnet(0), subnet(1)],
  stakes: [
    { netuid: 1, hotkey: key(1), coldkey: key(3), alpha: 5n },
    { netuid: 1, hotkey: key(1), coldkey: key(4), alpha: 50n },
    { netuid: 1, hotkey: key(1), coldkey: key(5), alpha: 7n },
  ],
};

describe("snapshotRecords", () => {
  const records = snapshotRecords(state, { chainId: 945, blockHash: HASH, ref, holderChunkSize: 2 });
  const of = (eventType: string, recordKey: string) => records.find((record) => record.eventType === eventType && record.key === recordKey)!;

  it("publishes per subnet a pool, emission, subnet, validator set and holder snapshot, then the totals", () => {
    expect(records.map((record) => `${record.key}/${record.eventType}`)).toEqual([
      "netuid:0/PoolSnapshot",
      "netuid:0/EmissionSnapshot",
      "netuid:0/SubnetSnapshot",
      "netuid:0/ValidatorSetSnapshot",
      "netuid:0/HolderPositions",
      "netuid:1/PoolSnapshot",
      "netuid:1/EmissionSnapshot",
      "netuid:1/SubnetSnapshot",
      "netuid:1/ValidatorSetSnapshot",
      "netuid:1/HolderPositions",
      "netuid:1/HolderPositions",
      "network/NetworkStatsSnapshot",
    ]);
    expect(new Set(records.map((record) => record.eventId)).size).toBe(records.length);
    expect(records.every((record) => record.eventId.startsWith(`945:${HASH}:`))).toBe(true);
  });

  it("turns 1e18-scaled prices into exact decimals and keeps base units as integers", () => {
    const pool = of("PoolSnapshot", "netuid:1").payload.event;
    expect(pool?.$case === "poolSnapshot" && pool.value).toMatchObject({
      mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
      taoInRao: "2000000000000",
      alphaInNalpha: "3000000000000",
      alphaIssuanceNalpha: "3000500000000",
      priceTao: "0.333333333",
      movingPriceTao: "0.012345678901234567",
      volumeTotalRao: "42",
    });
    const root = of("PoolSnapshot", "netuid:0").payload.event;
    expect(root?.$case === "poolSnapshot" && root.value.mechanism).toBe(PoolMechanism.POOL_MECHANISM_STABLE);
  });

  it("normalises u16 scores by 65535 and maps keys to accounts", () => {
    const set = of("ValidatorSetSnapshot", "netuid:1").payload.event;
    if (set?.$case !== "validatorSetSnapshot") throw new Error("not a validator set");
    expect(set.value.neurons[0]).toMatchObject({
      hotkey: accountFromPublicKey(key(1)),
      coldkey: accountFromPublicKey(key(2)),
      dividends: "1",
      vtrust: "0.50000762",
      incentive: "0",
      consensus: "0.17999542",
      emissionNalpha: "77",
      alphaStakeNalpha: "900",
      rootStakeRao: "10",
      lastUpdateBlock: "9",
    });
    const subnetEvent = of("SubnetSnapshot", "netuid:1").payload.event;
    expect(subnetEvent?.$case === "subnetSnapshot" && subnetEvent.value.liquidAlpha).toEqual({ enabled: true, alphaLow: "0.70000762", alphaHigh: "0.90000762" });
  });

  it("sums pool TAO into the network totals", () => {
    const stats = of("NetworkStatsSnapshot", "network").payload.event;
    expect(stats?.$case === "networkStatsSnapshot" && stats.value).toMatchObject({
      stakedRootRao: "1000000000000",
      stakedAlphaPoolsRao: "2000000000000",
      totalStakeRao: "3000000000000",
      // 971718665099567868 / (2^64 - 1), truncated to 18 places.
      taoWeight: "0.052676974387283289",
      subnetsCount: 2,
      rootNetuid: 0,
    });
  });

  it("only marks a non-root subnet that received emission as emitting", () => {
    const root = of("EmissionSnapshot", "netuid:0").payload.event;
    const one = of("EmissionSnapshot", "netuid:1").payload.event;
    expect(root?.$case === "emissionSnapshot" && root.value.emissionEnabled).toBe(false);
    expect(one?.$case === "emissionSnapshot" && one.value).toMatchObject({ emissionEnabled: true, taoInEmissionRao: "500000000", alphaOutEmissionNalpha: "1000000000" });
  });
});

describe("snapshotRecords with storage items (StorageQuery)", () => {
  const identity = { subnetName: "Kestrel", githubRepo: "g", subnetContact: "c", subnetUrl: "u", discord: "d", description: "x", logoUrl: "l", additional: "" };
  const chainIdentity = { name: "Granite", url: "u", githubRepo: "g", image: "", discord: "d", description: "x", additional: "" };
  const withStorage: NetworkState = {
    ...state,
    storage: { totalIssuance: 7_000_000_000_000_000n, blockEmission: 1_000_000_000n, subnetLimit: 64 },
    subnets: [
      subnet(0),
      subnet(1, {
        metadata: { tempo: 360, symbol: "κ", identity, ownerColdkey: key(2), ownerHotkey: key(1) },
        neurons: [{ ...subnet(1).neurons[0]!, metadata: { take: 11_796, identity: chainIdentity } }],
      }),
    ],
  };
  const records = snapshotRecords(withStorage, { chainId: 945, blockHash: HASH, ref, holderChunkSize: 2 });
  const of = <C extends string>(eventCase: C, recordKey: string) => {
    const event = records.find((record) => record.key === recordKey && record.payload.event?.$case === eventCase)!.payload.event!;
    return event.value as unknown as Record<string, unknown>;
  };

  it("fills the subnet's name (its identity's), symbol, identity, owner keys and tempo", () => {
    expect(of("subnetSnapshot", "netuid:1")).toMatchObject({
      name: "Kestrel",
      symbol: "κ",
      identity,
      ownerColdkey: accountFromPublicKey(key(2)),
      ownerHotkey: accountFromPublicKey(key(1)),
      tempo: 360,
    });
    expect(of("emissionSnapshot", "netuid:1")).toMatchObject({ tempo: 360, blockEmissionRao: "1000000000" });
  });

  it("fills each neuron's take (u16 / 65535) and its coldkey's identity", () => {
    const [neuron] = of("validatorSetSnapshot", "netuid:1").neurons as Record<string, unknown>[];
    expect(neuron).toMatchObject({ take: "0.17999542", identity: chainIdentity });
  });

  it("fills total issuance, block emission and subnet limit", () => {
    expect(of("networkStatsSnapshot", "network")).toMatchObject({ totalIssuanceRao: "7000000000000000", blockEmissionRao: "1000000000", subnetLimit: 64 });
  });

  it("leaves out what was not read: no name, symbol, identity, owner or take, proto defaults for the rest", () => {
    const root = of("subnetSnapshot", "netuid:0");
    for (const field of ["name", "symbol", "identity", "ownerColdkey", "ownerHotkey"]) expect(root).not.toHaveProperty(field);
    expect(root.tempo).toBe(0);
    const [neuron] = of("validatorSetSnapshot", "netuid:0").neurons as Record<string, unknown>[];
    expect(neuron).not.toHaveProperty("take");
    expect(neuron).not.toHaveProperty("identity");
    const stats = snapshotRecords(state, { chainId: 945, blockHash: HASH, ref, holderChunkSize: 2 }).at(-1)!.payload.event!.value;
    expect(stats).toMatchObject({ totalIssuanceRao: "", blockEmissionRao: "", subnetLimit: 0 });
  });
});

describe("holderChunks", () => {
  it("ranks positions by alpha and splits them into chunks of one block", () => {
    const chunks = holderChunks(state, 1, { ref, holderChunkSize: 2 });
    expect(chunks.map((chunk) => [chunk.chunkIndex, chunk.chunkCount, chunk.positions.map((position) => position.alphaNalpha)])).toEqual([
      [0, 2, ["50", "7"]],
      [1, 2, ["5"]],
    ]);
    expect(chunks[0]!.coverage).toBe(HolderCoverage.HOLDER_COVERAGE_REGISTERED_HOTKEYS_ONLY);
  });

  it("publishes one empty chunk for a subnet without holders, so consumers clear it", () => {
    expect(holderChunks(state, 0, { ref, holderChunkSize: 2 })).toMatchObject([{ chunkIndex: 0, chunkCount: 1, positions: [] }]);
  });
});
