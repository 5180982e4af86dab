import { describe, expect, it } from "vitest";
import { nextSubnets, readAllSubnets, subnetIndexes, subnetRecords } from "./subnets.js";
import { fakeRuntimeAt } from "./testSupport/runtimeAtFake.js";

const key = (byte: number) => `0x${byte.toString(16).padStart(2, "0").repeat(32)}`;
const [HOT_A, HOT_B, COLD_A] = [key(0xa1), key(0xb1), key(0xa2)];
const account = (publicKey: string) => ({ raw: publicKey });

/** Subnets 1 and 2 with a tempo each; hotkey A on 1, hotkey B on 2, both owned by coldkey A. */
function runtime(tempos: Record<number, number>, specVersion = 218) {
  return fakeRuntimeAt(
    {
      "subtensorModule.tempo": (netuid) => tempos[netuid as number] ?? 0,
      "subtensorModule.keys": [
        [[1, 0], account(HOT_A)],
        [[2, 0], account(HOT_B)],
      ],
      "subtensorModule.owner": () => account(COLD_A),
    },
    { specVersion },
  );
}
const enabled = (entries: [number, boolean][]) => new Map(entries);
const quiet = {
  details: new Set<number>(),
  metagraphs: new Set<number>(),
  scores: new Set<number>(),
  rootStakes: new Set<`0x${string}`>(),
};

describe("native subnets state", () => {
  it("is read whole at first, every subnet changed", async () => {
    const state = await readAllSubnets(
      runtime({ 1: 10, 2: 20 }),
      [1, 2],
      enabled([
        [1, true],
        [2, false],
      ]),
    );
    expect([...state.changedDetails]).toEqual([1, 2]);
    expect([...state.changedMetagraphs]).toEqual([1, 2]);
    expect(state.details.get(2)).toMatchObject({ netuid: 2, tempo: 20, emissionEnabled: false });
    expect(subnetIndexes(state).subnetsOfHotkey(HOT_A as `0x${string}`)).toEqual([1]);
    expect(subnetIndexes(state).subnetsOfColdkey(COLD_A as `0x${string}`)).toEqual([1, 2]);
  });

  it("then re-reads only what a block names, carrying the rest over unchanged", async () => {
    const parent = await readAllSubnets(
      runtime({ 1: 10, 2: 20 }),
      [1, 2],
      enabled([
        [1, true],
        [2, true],
      ]),
    );
    const chain = runtime({ 1: 10, 2: 99 });
    const state = (await nextSubnets(chain, parent, {
      netuids: [1, 2],
      changes: { ...quiet, details: new Set([2]) },
      emissionEnabled: enabled([
        [1, true],
        [2, true],
      ]),
    }))!;
    expect([...state.changedDetails]).toEqual([2]);
    expect([...state.changedMetagraphs]).toEqual([]);
    expect(state.details.get(2)?.tempo).toBe(99);
    expect(state.details.get(1)).toBe(parent.details.get(1));
    expect(state.metagraphs.get(1)).toBe(parent.metagraphs.get(1));
    // Only subnet 2's settings were read.
    expect(chain.reads.filter((read) => read.item === "subtensorModule.tempo").map((read) => read.keys)).toEqual([[2]]);
  });

  it("marks a subnet whose emission switched on or off, reads an added subnet whole, drops a removed one", async () => {
    const parent = await readAllSubnets(
      runtime({ 1: 10, 2: 20 }),
      [1, 2],
      enabled([
        [1, true],
        [2, true],
      ]),
    );
    const state = (await nextSubnets(runtime({ 1: 10, 3: 30 }), parent, {
      netuids: [1, 3],
      changes: quiet,
      emissionEnabled: enabled([
        [1, false],
        [3, true],
      ]),
    }))!;
    expect([...state.details.keys()]).toEqual([1, 3]);
    expect([...state.changedDetails].sort()).toEqual([1, 3]);
    expect(state.details.get(1)?.emissionEnabled).toBe(false);
    expect([...state.changedMetagraphs]).toEqual([3]);
  });

  it("re-reads only the scores and stakes of a metagraph whose make-up did not change", async () => {
    const items = (stake: bigint) =>
      fakeRuntimeAt({
        "subtensorModule.tempo": () => 10,
        "subtensorModule.keys": [[[1, 0], account(HOT_A)]],
        "subtensorModule.owner": () => account(COLD_A),
        "subtensorModule.delegates": () => 655,
        "subtensorModule.incentive": () => [65535],
        "subtensorModule.totalHotkeyAlpha": (pair) => ((pair as [string, number])[1] === 1 ? stake : 7n),
      });
    const parent = await readAllSubnets(items(100n), [1], enabled([]));
    const chain = items(250n);
    const state = (await nextSubnets(chain, parent, {
      netuids: [1],
      changes: { ...quiet, scores: new Set([1]) },
      emissionEnabled: enabled([]),
    }))!;
    expect(state.metagraphs.get(1)).toEqual([{ ...parent.metagraphs.get(1)![0], alphaStakeNalpha: "250" }]);
    expect([...state.changedMetagraphs]).toEqual([1]);
    // Neither the owner, the take nor the hotkeys were read again.
    expect(
      chain.reads
        .map((read) => read.item)
        .filter((item) =>
          ["subtensorModule.owner", "subtensorModule.delegates", "subtensorModule.keys"].includes(item),
        ),
    ).toEqual([]);
  });

  it("is read whole again under another runtime", async () => {
    const parent = await readAllSubnets(runtime({ 1: 10 }), [1], enabled([]));
    expect(
      await nextSubnets(runtime({ 1: 10 }, 219), parent, {
        netuids: [1],
        changes: quiet,
        emissionEnabled: enabled([]),
      }),
    ).toBeUndefined();
  });
});

describe("native subnets indexes", () => {
  const both = enabled([
    [1, true],
    [2, true],
  ]);
  it("shares the parent's indexes while the metagraphs hold the same neurons, builds new ones when they change", async () => {
    const parent = await readAllSubnets(runtime({ 1: 10, 2: 20 }), [1, 2], both);
    const scored = (await nextSubnets(runtime({ 1: 10, 2: 20 }), parent, {
      netuids: [1, 2],
      changes: { ...quiet, scores: new Set([1]) },
      emissionEnabled: both,
    }))!;
    expect(subnetIndexes(scored)).toBe(subnetIndexes(parent));
    const registered = (await nextSubnets(runtime({ 1: 10, 2: 20 }), scored, {
      netuids: [1, 2],
      changes: { ...quiet, metagraphs: new Set([2]) },
      emissionEnabled: both,
    }))!;
    expect(subnetIndexes(registered)).not.toBe(subnetIndexes(parent));
    expect(subnetIndexes(registered).subnetsOfHotkey(HOT_B as `0x${string}`)).toEqual([2]);
    const removed = (await nextSubnets(runtime({ 1: 10 }), scored, {
      netuids: [1],
      changes: quiet,
      emissionEnabled: enabled([[1, true]]),
    }))!;
    expect(subnetIndexes(removed).subnetsOfHotkey(HOT_B as `0x${string}`)).toEqual([]);
  });
});

describe("native metagraph refresh", () => {
  it("keeps a metagraph whose scores and stakes did not move (not changed, not published), and each neuron that did not", async () => {
    const items = (stakeOfA: bigint) =>
      fakeRuntimeAt({
        "subtensorModule.tempo": () => 10,
        "subtensorModule.keys": [
          [[1, 0], account(HOT_A)],
          [[1, 1], account(HOT_B)],
          [[2, 0], account(HOT_B)],
        ],
        "subtensorModule.owner": () => account(COLD_A),
        "subtensorModule.totalHotkeyAlpha": (pair) => {
          const [hotkey, netuid] = pair as [string, number];
          return netuid === 1 && hotkey === HOT_A ? stakeOfA : 7n;
        },
      });
    const parent = await readAllSubnets(items(100n), [1, 2], enabled([]));
    const state = (await nextSubnets(items(250n), parent, {
      netuids: [1, 2],
      changes: { ...quiet, scores: new Set([1, 2]) },
      emissionEnabled: enabled([]),
    }))!;
    expect([...state.changedMetagraphs]).toEqual([1]);
    expect(state.metagraphs.get(2)).toBe(parent.metagraphs.get(2));
    const [a, b] = state.metagraphs.get(1)!;
    expect(a).toEqual({ ...parent.metagraphs.get(1)![0], alphaStakeNalpha: "250" });
    expect(b).toBe(parent.metagraphs.get(1)![1]);
  });
});

describe("native root stake refresh", () => {
  it("reads only the named hotkeys' root stake on the other metagraphs they sit on, keeping every other neuron", async () => {
    const items = (rootOfB: bigint) =>
      fakeRuntimeAt({
        "subtensorModule.tempo": () => 10,
        "subtensorModule.keys": [
          [[1, 0], account(HOT_A)],
          [[2, 0], account(HOT_B)],
          [[2, 1], account(HOT_A)],
        ],
        "subtensorModule.owner": () => account(COLD_A),
        "subtensorModule.totalHotkeyAlpha": (pair) => {
          const [hotkey, netuid] = pair as [string, number];
          return netuid === 0 && hotkey === HOT_B ? rootOfB : 7n;
        },
      });
    const parent = await readAllSubnets(items(100n), [1, 2], enabled([]));
    const chain = items(300n);
    const state = (await nextSubnets(chain, parent, {
      netuids: [1, 2],
      changes: { ...quiet, rootStakes: new Set([HOT_B as `0x${string}`]) },
      emissionEnabled: enabled([]),
    }))!;
    // Only root stake moved on subnet 2: not a changed metagraph, but its moved neuron, published as such.
    expect([...state.changedMetagraphs]).toEqual([]);
    expect([...state.rootStakeChanges]).toEqual([[2, [{ uid: 0, hotkey: HOT_B, rootStakeRao: "300" }]]]);
    const ref = {
      chainId: "945",
      blockNumber: "9",
      blockHash: "0x09",
      parentHash: "0x08",
      blockTimestamp: "",
      finality: 0,
    };
    const published = subnetRecords(state, new Map(), { chainId: 945, ref });
    expect(published.map((record) => [record.key, record.eventType, record.payload.event?.value])).toEqual([
      ["netuid:2", "ValidatorRootStakes", { ref, netuid: 2, stakes: [{ uid: 0, hotkey: HOT_B, rootStakeRao: "300" }] }],
    ]);
    expect(state.metagraphs.get(1)).toBe(parent.metagraphs.get(1));
    const [b, a] = state.metagraphs.get(2)!;
    expect(b).toEqual({ ...parent.metagraphs.get(2)![0], rootStakeRao: "300" });
    expect(a).toBe(parent.metagraphs.get(2)![1]);
    // Hotkey B's root stake, nothing else.
    expect(chain.reads.map((read) => [read.item, read.keys])).toEqual([
      ["subtensorModule.totalHotkeyAlpha", [[HOT_B, 0]]],
    ]);
  });
});

describe("native subnets records", () => {
  it("re-reads the hotkeys' dividends with the scores, and publishes the metagraph with its epoch block and TaoWeight", async () => {
    const items = (dividends: bigint) =>
      fakeRuntimeAt({
        "subtensorModule.tempo": () => 10,
        "subtensorModule.keys": [[[1, 0], account(HOT_A)]],
        "subtensorModule.owner": () => account(COLD_A),
        "subtensorModule.totalHotkeyAlpha": () => 100n,
        "subtensorModule.hotkeyDividendsPerSubnet": (pair) =>
          (pair as [number, string])[0] === 1 && (pair as [number, string])[1] === HOT_A ? dividends : 0n,
      });
    const parent = await readAllSubnets(items(5n), [1], enabled([]));
    expect(parent.metagraphs.get(1)?.[0]?.hotkeyDividendsNalpha).toBe("5");
    // The epoch's block: only the scores are read again, the dividends among them.
    const state = (await nextSubnets(items(9n), parent, {
      netuids: [1],
      changes: { ...quiet, scores: new Set([1]) },
      emissionEnabled: enabled([]),
    }))!;
    expect(state.metagraphs.get(1)?.[0]?.hotkeyDividendsNalpha).toBe("9");
    const emission = {
      netuid: 1,
      emissionEnabled: true,
      taoInEmissionRao: "0",
      blockEmissionRao: "1",
      tempo: 10,
      lastEpochBlock: "9",
      taoWeight: "0.18",
    };
    const ref = {
      chainId: "945",
      blockNumber: "9",
      blockHash: `0x${"9".repeat(64)}`,
      parentHash: `0x${"8".repeat(64)}`,
      blockTimestamp: "2026-01-01T00:00:00.000Z",
      finality: 1,
    };
    const [, metagraph] = subnetRecords(state, new Map([[1, emission]]), { chainId: 945, ref });
    expect(metagraph?.payload.event).toMatchObject({
      $case: "validatorSetSnapshot",
      value: { netuid: 1, lastEpochBlock: "9", taoWeight: "0.18" },
    });
  });

  it("publishes every emission, and settings and metagraphs only of the subnets that changed", async () => {
    const parent = await readAllSubnets(runtime({ 1: 10, 2: 20 }), [1, 2], enabled([]));
    const state = (await nextSubnets(runtime({ 1: 10, 2: 20 }), parent, {
      netuids: [1, 2],
      changes: { ...quiet, metagraphs: new Set([1]) },
      emissionEnabled: enabled([]),
    }))!;
    const ref = {
      chainId: "945",
      blockNumber: "9",
      blockHash: `0x${"9".repeat(64)}`,
      parentHash: `0x${"8".repeat(64)}`,
      blockTimestamp: "2026-01-01T00:00:00.000Z",
      finality: 1,
    };
    const emission = { netuid: 0, emissionEnabled: false, taoInEmissionRao: "0", blockEmissionRao: "1", tempo: 0 };
    const records = subnetRecords(
      state,
      new Map([
        [2, { ...emission, netuid: 2 }],
        [1, { ...emission, netuid: 1 }],
      ]),
      { chainId: 945, ref },
    );
    expect(records.map((record) => [record.eventType, record.key])).toEqual([
      ["EmissionSnapshot", "netuid:1"],
      ["EmissionSnapshot", "netuid:2"],
      ["ValidatorSetSnapshot", "netuid:1"],
    ]);
  });
});
