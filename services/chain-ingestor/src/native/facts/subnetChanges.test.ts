import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import type { RuntimeEvent } from "../node/runtimeEvent.js";
import { type SubnetChangeInput, subnetChangesOf } from "./subnetChanges.js";

const key = (byte: number) => `0x${byte.toString(16).padStart(2, "0").repeat(32)}` as Hex;
const [HOT_A, HOT_B, COLD_A] = [key(0xa1), key(0xb1), key(0xa2)];
const event = (name: string, data: unknown, pallet = "SubtensorModule"): RuntimeEvent => ({
  index: 0,
  pallet,
  name,
  data,
});

/** Hotkey A sits on subnets 1 and 3 (owned by coldkey A), hotkey B on subnet 2. */
const input = (overrides: Partial<SubnetChangeInput>): SubnetChangeInput => ({
  events: [],
  epochs: [],
  adjustments: [],
  subnetsOfHotkey: (hotkey) => (hotkey === HOT_A ? [1, 3] : hotkey === HOT_B ? [2] : []),
  subnetsOfColdkey: (coldkey) => (coldkey === COLD_A ? [1, 3] : []),
  hotkeysOf: (netuid) => (netuid === 2 ? [HOT_B] : [HOT_A]),
  ...overrides,
});
const sorted = (set: ReadonlySet<number> | "all") => (set === "all" ? set : [...set].sort((a, b) => a - b));

describe("subnetChangesOf", () => {
  it("names nothing for a quiet block, and the adjusted subnets' settings", () => {
    expect(subnetChangesOf(input({}))).toEqual({
      details: new Set(),
      metagraphs: new Set(),
      scores: new Set(),
      rootStakes: new Set(),
    });
    expect(sorted(subnetChangesOf(input({ adjustments: [4] })).details)).toEqual([4]);
  });

  it("a setting event changes its subnet's settings; a registration also its metagraph's make-up; weights only its scores", () => {
    const changes = subnetChangesOf(
      input({
        events: [
          event("TempoSet", [5, 10]),
          event("NeuronRegistered", [6, 1, { raw: HOT_B }]),
          event("WeightsSet", [7, 0]),
        ],
      }),
    );
    expect(sorted(changes.details)).toEqual([5, 6]);
    expect(sorted(changes.metagraphs)).toEqual([6]);
    expect(sorted(changes.scores)).toEqual([7]);
  });

  it("a stake on a subnet changes its metagraph; on root, root's and its hotkey's root stake on every metagraph it sits on", () => {
    const onSubnet = subnetChangesOf(
      input({ events: [event("StakeAdded", [{ raw: COLD_A }, { raw: HOT_B }, 1n, 1n, 2])] }),
    );
    expect([sorted(onSubnet.scores), sorted(onSubnet.metagraphs)]).toEqual([[2], []]);
    const onRoot = subnetChangesOf(
      input({ events: [event("StakeRemoved", [{ raw: COLD_A }, { raw: HOT_A }, 1n, 1n, 0])] }),
    );
    expect([sorted(onRoot.scores), [...onRoot.rootStakes]]).toEqual([[0], [HOT_A]]);
    const moved = subnetChangesOf(
      input({ events: [event("StakeMoved", [{ raw: COLD_A }, { raw: HOT_A }, 1, { raw: HOT_B }, 2])] }),
    );
    expect(sorted(moved.scores)).toEqual([1, 2]);
  });

  it("an epoch changes its metagraph, root's, and its hotkeys' root stake (root dividends) on every metagraph", () => {
    const epoch = subnetChangesOf(input({ epochs: [1] }));
    expect([sorted(epoch.scores), sorted(epoch.metagraphs), [...epoch.rootStakes]]).toEqual([[0, 1], [], [HOT_A]]);
  });

  it("a take or identity change reaches the metagraphs of the hotkey or coldkey", () => {
    expect(
      sorted(
        subnetChangesOf(input({ events: [event("TakeIncreased", [{ raw: COLD_A }, { raw: HOT_A }, 100])] })).metagraphs,
      ),
    ).toEqual([1, 3]);
    expect(
      sorted(subnetChangesOf(input({ events: [event("ChainIdentitySet", [{ raw: COLD_A }])] })).metagraphs),
    ).toEqual([1, 3]);
  });

  it("reads the served subnet's metagraph again for an axon served, and nothing else", () => {
    expect(subnetChangesOf(input({ events: [event("AxonServed", [3, { raw: HOT_A }])] }))).toEqual({
      details: new Set(),
      metagraphs: new Set([3]),
      scores: new Set(),
      rootStakes: new Set(),
    });
  });

  it("changes nothing for events without a bearing, and everything for one it does not know or cannot read", () => {
    expect(
      subnetChangesOf(
        input({ events: [event("PrometheusServed", [1, { raw: HOT_A }]), event("Transfer", {}, "Balances")] }),
      ),
    ).toEqual({ details: new Set(), metagraphs: new Set(), scores: new Set(), rootStakes: new Set() });
    expect(subnetChangesOf(input({ events: [event("HotkeySwapped", {})] }))).toEqual({
      details: "all",
      metagraphs: "all",
      scores: "all",
      rootStakes: new Set(),
    });
    expect(subnetChangesOf(input({ events: [event("StakeAdded", ["garbled"])] }))).toEqual({
      details: "all",
      metagraphs: "all",
      scores: "all",
      rootStakes: new Set(),
    });
  });
});
