import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import type { BlockHeader } from "../../follower/blocks.js";
import type { NativeNetworkStorage } from "../node/chainReader.js";
import type { RuntimeEvent } from "../node/runtimeEvent.js";
import { accountsCounter, accountsDelta, blockContentCounts, nativeStatsRecord, subnetLockCost } from "./stats.js";

const storage = (values: Partial<NativeNetworkStorage>): NativeNetworkStorage => ({
  totalIssuance: undefined,
  balancesIssuance: undefined,
  totalStake: undefined,
  blockEmission: undefined,
  subnetLimit: undefined,
  minLock: undefined,
  lastLock: undefined,
  lastRegistered: undefined,
  lockInterval: undefined,
  subnetLocked: undefined,
  taoWeight: undefined,
  ...values,
});
const hash = (number: number) => `0x${number.toString(16).padStart(64, "0")}` as Hex;
const header = (number: number): BlockHeader => ({
  number: BigInt(number),
  hash: hash(number),
  parentHash: hash(number - 1),
  timestamp: 0n,
});
const event = (name: string): RuntimeEvent => ({ index: 0, pallet: "System", name, data: undefined });

describe("subnetLockCost", () => {
  const lock = { lastLock: 4_000_000_000n, minLock: 1_000_000_000n, lockInterval: 1_200n };
  it("doubles the last lock once a subnet was registered, less a linear reduction since, never below the minimum", () => {
    // 8e9 - (4e9 / 1200 = 3,333,333) x 2 blocks: the runtime API's answer at block 4 after a registration at block 2.
    expect(subnetLockCost(storage({ ...lock, lastRegistered: 2n }), 4n)).toBe(7_993_333_334n);
    expect(subnetLockCost(storage({ ...lock, lastRegistered: 0n }), 10n)).toBe(4_000_000_000n - 33_333_330n);
    expect(subnetLockCost(storage({ ...lock, lastRegistered: 2n }), 100_000n)).toBe(1_000_000_000n);
    expect(subnetLockCost(storage({ ...lock, lastRegistered: 2n, lockInterval: 0n }), 50n)).toBe(8_000_000_000n);
  });
  it("is unknown when the runtime keeps any input under another name", () => {
    expect(subnetLockCost(storage({ ...lock }), 4n)).toBeUndefined();
  });
});

describe("accountsCounter", () => {
  it("counts block 1 in full even after genesis: a devnet's genesis may be amended without events", async () => {
    const full: Hex[] = [];
    const counts = [202n, 208n];
    const counter = accountsCounter({
      countAt: async (at) => (full.push(at), counts.shift()!),
      recountEveryBlocks: 7_200,
    });
    expect(await counter.countAt(header(0), Promise.resolve([]))).toBe(202n);
    expect(await counter.countAt(header(1), Promise.resolve([]))).toBe(208n);
    expect(await counter.countAt(header(2), Promise.resolve([event("NewAccount")]))).toBe(209n);
    expect(full).toEqual([hash(0), hash(1)]);
  });

  it("keeps the count from the events, counting in full only without a known parent and at recounts", async () => {
    const full: Hex[] = [];
    const counter = accountsCounter({ countAt: async (at) => (full.push(at), 50_000n), recountEveryBlocks: 10 });
    const first = counter.countAt(header(7), Promise.resolve([]));
    // Registered before the parent's count resolved: it waits for it instead of counting in full.
    const second = counter.countAt(
      header(8),
      Promise.resolve([event("NewAccount"), event("NewAccount"), event("KilledAccount")]),
    );
    expect([await first, await second]).toEqual([50_000n, 50_001n]);
    expect(await counter.countAt(header(9), Promise.resolve([event("KilledAccount")]))).toBe(50_000n);
    expect(await counter.countAt(header(10), Promise.resolve([]))).toBe(50_000n);
    expect(full).toEqual([hash(7), hash(10)]);
  });

  it("forgets a failed count, and a failed read of the events is not left unhandled", async () => {
    let fail = true;
    const counter = accountsCounter({
      countAt: async () => {
        if (fail) throw new Error("node down");
        return 3n;
      },
      recountEveryBlocks: 7_200,
    });
    await expect(counter.countAt(header(1), Promise.reject(new Error("no events")))).rejects.toThrow("node down");
    fail = false;
    expect(await counter.countAt(header(1), Promise.resolve([]))).toBe(3n);
  });

  it("counts only System.NewAccount and System.KilledAccount", () => {
    expect(
      accountsDelta([
        event("NewAccount"),
        { ...event("NewAccount"), pallet: "Balances" },
        event("KilledAccount"),
        event("ExtrinsicSuccess"),
      ]),
    ).toBe(0n);
  });
});

describe("the block's own counts", () => {
  const of = (pallet: string, name: string): RuntimeEvent => ({ index: 0, pallet, name, data: undefined });

  it("counts the body's extrinsics and the Balances.Transfer events the block kept", () => {
    const counts = blockContentCounts({
      extrinsicHashes: [hash(1), hash(2), hash(3)],
      events: [
        of("Balances", "Withdraw"),
        of("Balances", "Transfer"),
        of("System", "ExtrinsicSuccess"),
        of("Balances", "Transfer"),
        of("SubtensorModule", "Transfer"),
        of("Balances", "TransferAllowDeath"),
        of("System", "ExtrinsicFailed"),
      ],
    });
    expect(counts).toEqual({ extrinsics: 3, transfers: 2 });
    expect(blockContentCounts({ extrinsicHashes: [], events: [] })).toEqual({ extrinsics: 0, transfers: 0 });
  });

  it("go out on the block's network totals, zeros included", () => {
    const record = nativeStatsRecord(
      {
        header: header(5),
        ref: {
          chainId: "945",
          blockNumber: "5",
          blockHash: hash(5),
          parentHash: hash(4),
          blockTimestamp: "",
          finality: 0,
        },
        storage: storage({}),
        pools: [],
        accountsCount: undefined,
        counts: { extrinsics: 2, transfers: 0 },
      },
      945,
    );
    const stats = record.payload.event?.$case === "networkStatsSnapshot" ? record.payload.event.value : undefined;
    expect([stats?.blockExtrinsicsCount, stats?.blockTransfersCount]).toEqual([2, 0]);
    // Totals over the chain's history are the projection's to keep, never one block's.
    expect([stats?.extrinsicsCount, stats?.transfersCount]).toEqual([undefined, undefined]);
    // No finalized head known: none published (readers then go by each block's own finality).
    expect(stats?.finalizedBlockNumber).toBeUndefined();
  });

  it("carry the finalized head the source saw, for readers to tell which blocks are final", () => {
    const record = nativeStatsRecord(
      {
        header: header(9),
        ref: {
          chainId: "945",
          blockNumber: "9",
          blockHash: hash(9),
          parentHash: hash(8),
          blockTimestamp: "",
          finality: 0,
        },
        storage: storage({}),
        pools: [],
        accountsCount: undefined,
        counts: { extrinsics: 0, transfers: 0 },
        finalizedBlockNumber: 7n,
      },
      945,
    );
    const stats = record.payload.event?.$case === "networkStatsSnapshot" ? record.payload.event.value : undefined;
    expect(stats?.finalizedBlockNumber).toBe("7");
  });
});
