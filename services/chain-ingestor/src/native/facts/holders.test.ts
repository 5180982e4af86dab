import { HolderCoverage } from "@platform/proto/common/v1/network";
import { applyHolderSetDelta, holderSetDigest } from "@platform/proto/holderSets";
import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import {
  changedColdkeys,
  coldkeysOn,
  type HolderState,
  holderChangesOf,
  holderRecords,
  nextHolders,
  positionsOf,
  readAllHolders,
  valuedPositions,
} from "./holders.js";
import { type FakeItem, fakeRuntimeAt } from "./testSupport/runtimeAtFake.js";

const key = (byte: number) => `0x${byte.toString(16).padStart(2, "0").repeat(32)}` as Hex;
const [HOT_A, HOT_B, HOT_X, COLD_1, COLD_2, COLD_3] = [
  key(0xa1),
  key(0xb1),
  key(0xe1),
  key(0x01),
  key(0x02),
  key(0x03),
];
const account = (publicKey: string) => ({ raw: publicKey });

/** Share pools in spec 218's shape: u64 shares, `TotalHotkeyShares` the sum of a hotkey's entries. */
interface Chain {
  alpha: [Hex, Hex, number, bigint][];
  totals: Record<string, bigint>;
  keys?: [number, number, Hex][];
  ownerHotkeys?: Record<number, Hex>;
  /** (child, netuid, parent) of `ParentKeys`. */
  parents?: [Hex, number, Hex][];
  /** `Owner`: each hotkey's coldkey. */
  owners?: Record<Hex, Hex>;
}

function runtime(chain: Chain, specVersion = 218) {
  const shares = (hotkey: Hex, netuid: number) =>
    chain.alpha.filter(([h, , n]) => h === hotkey && n === netuid).reduce((sum, [, , , value]) => sum + value, 0n);
  const items: Record<string, FakeItem> = {
    // Accounts as hex, the form keys are given in (the client answers either form; accountField reads both).
    "subtensorModule.alpha": chain.alpha.map(
      ([hotkey, coldkey, netuid, value]) => [[hotkey, coldkey, netuid], value] as const,
    ),
    "subtensorModule.owner": (hotkey) => account(chain.owners?.[hotkey as Hex] ?? `0x${"0".repeat(64)}`),
    "subtensorModule.totalHotkeyAlpha": (pair) => chain.totals[(pair as [Hex, number]).join(":")] ?? 0n,
    "subtensorModule.totalHotkeyShares": (pair) => shares(...(pair as [Hex, number])),
    "subtensorModule.keys": (chain.keys ?? []).map(
      ([netuid, uid, hotkey]) => [[netuid, uid], account(hotkey)] as const,
    ),
    "subtensorModule.subnetOwnerHotkey": (netuid) =>
      account(chain.ownerHotkeys?.[netuid as number] ?? `0x${"0".repeat(64)}`),
    "subtensorModule.parentKeys": (chain.parents ?? []).map(
      ([child, netuid, parent]) => [[account(child), netuid], [[18446744073709551615n, account(parent)]]] as const,
    ),
  };
  return fakeRuntimeAt(items, { specVersion });
}

/** Hotkey A holds a UID on subnet 1, B on subnet 2 (what the block's metagraphs say). */
const registered = (netuid: number): Hex[] => (netuid === 1 ? [HOT_A] : netuid === 2 ? [HOT_B] : []);
const noChanges = { stakeTouches: [], events: [], epochs: [], netuids: [0, 1, 2], registered };
const valuesOf = (state: HolderState, netuid: number) =>
  valuedPositions(state.subnets.get(netuid)!).map((value) => [value.coldkey, value.hotkey, value.alphaNalpha]);

// Subnet 1: coldkeys 1 and 2 through hotkey A (registered), coldkey 3 through X (registered nowhere on 1).
const start: Chain = {
  alpha: [
    [HOT_A, COLD_1, 1, 600n],
    [HOT_A, COLD_2, 1, 400n],
    [HOT_X, COLD_3, 1, 50n],
    [HOT_B, COLD_1, 2, 10n],
  ],
  totals: { [`${HOT_A}:1`]: 2_000n, [`${HOT_X}:1`]: 100n, [`${HOT_B}:2`]: 10n },
  keys: [
    [1, 0, HOT_A],
    [2, 0, HOT_B],
  ],
  owners: { [HOT_A]: COLD_3, [HOT_B]: COLD_2 },
};
const alphaReads = (chain: ReturnType<typeof runtime>) =>
  chain.reads.filter((read) => read.item === "subtensorModule.alpha").map((read) => [read.kind, read.keys]);

describe("native holders: full reads and stake events", () => {
  it("reads every position of the Alpha map, hotkeys registered on the subnet or not, valued by its pool", async () => {
    const state = (await readAllHolders(runtime(start), [0, 1, 2]))!;
    expect(valuesOf(state, 1)).toEqual([
      [COLD_1, HOT_A, 1_200n],
      [COLD_2, HOT_A, 800n],
      [COLD_3, HOT_X, 100n],
    ]);
    expect(valuesOf(state, 0)).toEqual([]);
    expect([...state.changed]).toEqual([0, 1, 2]);
  });

  it("after a stake event re-reads only the named subnet, and only the entries the event names (and the owner's) when the shares moved", async () => {
    const parent = (await readAllHolders(runtime(start), [0, 1, 2]))!;
    const after: Chain = {
      ...start,
      alpha: [...start.alpha.slice(0, 3), [HOT_B, COLD_1, 2, 10n], [HOT_B, COLD_3, 2, 30n]],
      totals: { ...start.totals, [`${HOT_B}:2`]: 40n },
    };
    const chain = runtime(after);
    const changes = holderChangesOf({
      ...noChanges,
      stakeTouches: [{ hotkey: { publicKey: HOT_B }, coldkey: { publicKey: COLD_3 }, netuid: 2 }],
    });
    const state = (await nextHolders(chain, parent, changes))!;
    expect([...state.changed]).toEqual([2]);
    expect(valuesOf(state, 2)).toEqual([
      [COLD_3, HOT_B, 30n],
      [COLD_1, HOT_B, 10n],
    ]);
    // Subnet 1 is carried over as it was, not read again.
    expect(state.subnets.get(1)).toBe(parent.subnets.get(1));
    // One batched read of the named entry and the owner's; the sum matched, so no prefix walk.
    expect(alphaReads(chain)).toEqual([
      [
        "multi",
        [
          [HOT_B, COLD_3, 2],
          [HOT_B, COLD_2, 2],
        ],
      ],
    ]);
  });

  it("reads a hotkey's entries whole when the entries read do not add up to its shares (a change no event named)", async () => {
    const parent = (await readAllHolders(runtime(start), [0, 1, 2]))!;
    // Coldkey 1's position on B moved to coldkey 3 without any event this reader decodes.
    const after: Chain = {
      ...start,
      alpha: [...start.alpha.slice(0, 3), [HOT_B, COLD_3, 2, 25n]],
      totals: { ...start.totals, [`${HOT_B}:2`]: 25n },
    };
    const chain = runtime(after);
    const state = (await nextHolders(chain, parent, holderChangesOf({ ...noChanges, epochs: [2] })))!;
    expect(valuesOf(state, 2)).toEqual([[COLD_3, HOT_B, 25n]]);
    expect(alphaReads(chain)).toEqual([
      ["multi", [[HOT_B, COLD_2, 2]]],
      ["entries", [HOT_B]],
    ]);
  });
});

describe("native holders: epochs", () => {
  it("at an epoch re-values every pool of the subnet, and of root, from the new totals", async () => {
    const parent = (await readAllHolders(runtime(start), [0, 1, 2]))!;
    // The epoch paid hotkey A: its total grew, no share moved.
    const after: Chain = { ...start, totals: { ...start.totals, [`${HOT_A}:1`]: 3_000n } };
    const state = (await nextHolders(runtime(after), parent, holderChangesOf({ ...noChanges, epochs: [1] })))!;
    expect([...state.changed].sort()).toEqual([0, 1]);
    expect(valuesOf(state, 1).slice(0, 2)).toEqual([
      [COLD_1, HOT_A, 1_800n],
      [COLD_2, HOT_A, 1_200n],
    ]);
  });

  it("at an epoch finds a new position of a registered hotkey's owner (incentive staked without an event), reading only that entry", async () => {
    const parent = (await readAllHolders(runtime(start), [0, 1, 2]))!;
    const after: Chain = {
      ...start,
      alpha: [...start.alpha, [HOT_A, COLD_3, 1, 100n]],
      totals: { ...start.totals, [`${HOT_A}:1`]: 2_200n },
    };
    const chain = runtime(after);
    const state = (await nextHolders(chain, parent, holderChangesOf({ ...noChanges, epochs: [1] })))!;
    expect(valuesOf(state, 1).find(([coldkey, hotkey]) => coldkey === COLD_3 && hotkey === HOT_A)).toEqual([
      COLD_3,
      HOT_A,
      200n,
    ]);
    expect(alphaReads(chain)).toEqual([["multi", [[HOT_A, COLD_3, 1]]]]);
  });

  it("at an epoch finds the position a parent hotkey's owner gained (validator take on a child's dividends)", async () => {
    const withParent: Chain = { ...start, parents: [[HOT_A, 1, HOT_B]] };
    const parent = (await readAllHolders(runtime(withParent), [0, 1, 2]))!;
    expect([...parent.parents.get(1)!]).toEqual([HOT_B]);
    const after: Chain = {
      ...withParent,
      alpha: [...withParent.alpha, [HOT_B, COLD_2, 1, 30n]],
      totals: { ...withParent.totals, [`${HOT_B}:1`]: 30n },
    };
    const state = (await nextHolders(runtime(after), parent, holderChangesOf({ ...noChanges, epochs: [1] })))!;
    expect(valuesOf(state, 1).find(([, hotkey]) => hotkey === HOT_B)).toEqual([COLD_2, HOT_B, 30n]);
  });

  it("leaves unregistered hotkeys' pools unread at an epoch (only events move them)", async () => {
    const parent = (await readAllHolders(runtime(start), [0, 1, 2]))!;
    const chain = runtime(start);
    await nextHolders(chain, parent, holderChangesOf({ ...noChanges, epochs: [1] }));
    const pairs = chain.reads
      .filter((read) => read.item === "subtensorModule.totalHotkeyShares")
      .flatMap((read) => read.keys as [Hex, number][]);
    expect(pairs.filter(([hotkey]) => hotkey === HOT_X)).toEqual([]);
    expect(pairs).toEqual(
      expect.arrayContaining([
        [HOT_A, 1],
        [HOT_A, 0],
      ]),
    );
  });
});

describe("native holders: full re-reads, subnet changes, positions and records", () => {
  it("asks for a full read on a swap or an unknown event, and on another runtime", async () => {
    const parent = (await readAllHolders(runtime(start), [0, 1, 2]))!;
    const swap = holderChangesOf({
      ...noChanges,
      events: [{ index: 0, pallet: "SubtensorModule", name: "HotkeySwapped", data: {} }],
    });
    expect(swap.readAll).toBe(true);
    expect(await nextHolders(runtime(start), parent, swap)).toBeUndefined();
    const neutral = holderChangesOf({
      ...noChanges,
      events: [{ index: 0, pallet: "SubtensorModule", name: "WeightsSet", data: [1, 0] }],
    });
    expect(neutral.readAll).toBe(false);
    expect(await nextHolders(runtime(start, 219), parent, neutral)).toBeUndefined();
  });

  it("drops a removed subnet and reads an added one from its owner's hotkey", async () => {
    const parent = (await readAllHolders(runtime(start), [0, 1, 2]))!;
    const after: Chain = {
      ...start,
      alpha: [...start.alpha, [HOT_B, COLD_2, 3, 5n]],
      totals: { ...start.totals, [`${HOT_B}:3`]: 5n },
      ownerHotkeys: { 3: HOT_B },
    };
    const state = (await nextHolders(runtime(after), parent, holderChangesOf({ ...noChanges, netuids: [0, 1, 3] })))!;
    expect([...state.subnets.keys()]).toEqual([0, 1, 3]);
    expect(valuesOf(state, 3)).toEqual([[COLD_2, HOT_B, 5n]]);
    expect([...state.changed]).toEqual([3]);
  });

  it("gives a coldkey's positions on every subnet from the state, as the runtime values them", async () => {
    const state = (await readAllHolders(runtime(start), [0, 1, 2]))!;
    expect(positionsOf(state, [COLD_1, COLD_3, key(0x09)])).toEqual(
      new Map([
        [
          COLD_1,
          [
            { netuid: 1, hotkey: HOT_A, stakeNalpha: 1_200n },
            { netuid: 2, hotkey: HOT_B, stakeNalpha: 10n },
          ],
        ],
        [COLD_3, [{ netuid: 1, hotkey: HOT_X, stakeNalpha: 100n }]],
        [key(0x09), []],
      ]),
    );
    // A subnet whose coldkey index stands (coldkeysOn builds it) is looked up in it: the same answer.
    coldkeysOn(state, [1, 2]);
    expect(positionsOf(state, [COLD_1])).toEqual(
      new Map([
        [
          COLD_1,
          [
            { netuid: 1, hotkey: HOT_A, stakeNalpha: 1_200n },
            { netuid: 2, hotkey: HOT_B, stakeNalpha: 10n },
          ],
        ],
      ]),
    );
  });

  it("names the coldkeys whose positions a block changed in value, and none for a block that changed nothing", async () => {
    const parent = (await readAllHolders(runtime(start), [0, 1, 2]))!;
    // The epoch paid hotkey A: both its coldkeys gained; coldkey 3 (through X) did not.
    const paid = (await nextHolders(
      runtime({ ...start, totals: { ...start.totals, [`${HOT_A}:1`]: 3_000n } }),
      parent,
      holderChangesOf({ ...noChanges, epochs: [1] }),
    ))!;
    expect(changedColdkeys(parent, paid)).toEqual([COLD_1, COLD_2].sort());
    const quiet = (await nextHolders(runtime(start), parent, holderChangesOf(noChanges)))!;
    expect(changedColdkeys(parent, quiet)).toEqual([]);
    expect(changedColdkeys(undefined, quiet)).toEqual([]);
  });

  it("publishes each changed subnet's whole set in chunks, complete, one empty chunk for none", async () => {
    const state = (await readAllHolders(runtime(start), [0, 1, 2]))!;
    const ref = {
      chainId: "945",
      blockNumber: "7",
      blockHash: `0x${"7".repeat(64)}`,
      parentHash: `0x${"6".repeat(64)}`,
      blockTimestamp: "2026-01-01T00:00:00.000Z",
      finality: 1,
    };
    const records = holderRecords(state, { chainId: 945, ref, chunkSize: 2, keyframeEvery: 7_200 });
    const chunks = records.map(
      (record) => (record.payload.event?.$case === "holderPositions" ? record.payload.event.value : undefined)!,
    );
    expect(chunks.map((chunk) => [chunk.netuid, chunk.chunkIndex, chunk.chunkCount, chunk.positions.length])).toEqual([
      [0, 0, 1, 0],
      [1, 0, 2, 2],
      [1, 1, 2, 1],
      [2, 0, 1, 1],
    ]);
    expect(new Set(chunks.map((chunk) => chunk.coverage))).toEqual(new Set([HolderCoverage.HOLDER_COVERAGE_COMPLETE]));
    expect(new Set(records.map((record) => record.eventId)).size).toBe(records.length);
    expect(records.map((record) => record.key)).toEqual(["netuid:0", "netuid:1", "netuid:1", "netuid:2"]);
    // Without a parent every set is a keyframe: no base, and the digest of the whole set.
    expect(chunks.every((chunk) => chunk.baseDigest === undefined && chunk.digest?.length === 32)).toBe(true);
  });
});

describe("native holders: deltas and keyframes", () => {
  it("publishes a delta against the parent's set, which applied gives the block's set, and keyframes on schedule", async () => {
    const parent = (await readAllHolders(runtime(start), [0, 1, 2]))!;
    const after: Chain = {
      ...start,
      alpha: [...start.alpha.slice(0, 3), [HOT_B, COLD_1, 2, 10n], [HOT_B, COLD_3, 2, 30n]],
      totals: { ...start.totals, [`${HOT_B}:2`]: 40n },
    };
    const changes = holderChangesOf({
      ...noChanges,
      stakeTouches: [{ hotkey: { publicKey: HOT_B }, coldkey: { publicKey: COLD_3 }, netuid: 2 }],
    });
    const state = (await nextHolders(runtime(after), parent, changes))!;
    const refAt = (block: number) => ({
      chainId: "945",
      blockNumber: String(block),
      blockHash: `0x${block.toString(16).padStart(64, "0")}`,
      parentHash: `0x${(block - 1).toString(16).padStart(64, "0")}`,
      blockTimestamp: "2026-01-01T00:00:00.000Z",
      finality: 1,
    });
    const setOf = (records: ReturnType<typeof holderRecords>, netuid: number) =>
      records
        .map((record) => (record.payload.event?.$case === "holderPositions" ? record.payload.event.value : undefined)!)
        .filter((chunk) => chunk.netuid === netuid);
    const wholeOf = (holders: HolderState, netuid: number) =>
      setOf(holderRecords(holders, { chainId: 945, ref: refAt(1), chunkSize: 100, keyframeEvery: 1 }), netuid)[0]!;

    // Block 8 (no keyframe due for 0, 1 or 2 at an interval of 100): only subnet 2, as a delta.
    const records = holderRecords(state, { chainId: 945, ref: refAt(8), chunkSize: 100, parent, keyframeEvery: 100 });
    expect(records.map((record) => record.key)).toEqual(["netuid:2"]);
    const [delta] = setOf(records, 2);
    const before = wholeOf(parent, 2);
    const whole = wholeOf(state, 2);
    expect(delta!.positions.map((position) => [position.coldkey!.publicKey, position.alphaNalpha])).toEqual([
      [COLD_3, "30"],
    ]);
    expect(delta!.baseDigest).toEqual(before.digest);
    expect(delta!.digest).toEqual(whole.digest);
    expect(applyHolderSetDelta(before.positions, delta!.positions)).toEqual(whole.positions);
    expect(holderSetDigest(whole.positions)).toEqual(whole.digest);

    // Block 101: subnet 1's keyframe is due (101 % 100 = 1): its whole set goes out, though unchanged.
    const keyframes = holderRecords(state, {
      chainId: 945,
      ref: refAt(101),
      chunkSize: 100,
      parent,
      keyframeEvery: 100,
    });
    expect(keyframes.map((record) => record.key)).toEqual(["netuid:1", "netuid:2"]);
    const [keyframe] = setOf(keyframes, 1);
    expect(keyframe!.baseDigest).toBeUndefined();
    expect(keyframe!.positions).toEqual(wholeOf(state, 1).positions);
    expect(setOf(keyframes, 2)[0]!.baseDigest).toEqual(before.digest);
  });
});
