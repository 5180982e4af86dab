import { ValidatorSetSnapshot } from "@platform/proto/events/v1/chain_network";
import { describe, expect, it } from "vitest";
import { withRootStakes } from "./rootStakes.js";

const HOT_A = `0x${"a".repeat(64)}`;
const HOT_B = `0x${"b".repeat(64)}`;
const ref = (block: number) => ({
  chainId: "945",
  blockNumber: String(block),
  blockHash: `0x${block}`,
  parentHash: `0x${block - 1}`,
  blockTimestamp: "",
  finality: 0,
});
const snapshot = ValidatorSetSnapshot.fromPartial({
  ref: ref(10),
  netuid: 3,
  neurons: [
    { uid: 0, hotkey: { ss58: "a", publicKey: HOT_A }, alphaStakeNalpha: "5", rootStakeRao: "100" },
    { uid: 1, hotkey: { ss58: "b", publicKey: HOT_B }, alphaStakeNalpha: "6" },
  ],
});

describe("withRootStakes", () => {
  it("applies the moves in order over the snapshot, as of the newest move", () => {
    const patched = withRootStakes(snapshot, [
      { ref: ref(11), netuid: 3, stakes: [{ uid: 0, hotkey: HOT_A, rootStakeRao: "150" }] },
      {
        ref: ref(12),
        netuid: 3,
        stakes: [
          { uid: 1, hotkey: HOT_B, rootStakeRao: "7" },
          { uid: 0, hotkey: HOT_A },
        ],
      },
    ]);
    expect(patched.ref).toEqual(ref(12));
    expect(patched.neurons.map((neuron) => [neuron.uid, neuron.rootStakeRao, neuron.alphaStakeNalpha])).toEqual([
      [0, undefined, "5"],
      [1, "7", "6"],
    ]);
    // The snapshot itself is left as it was (it may be an answer kept elsewhere).
    expect(snapshot.neurons[0]!.rootStakeRao).toBe("100");
  });

  it("leaves a neuron whose uid names another hotkey, and answers the snapshot itself without moves", () => {
    expect(withRootStakes(snapshot, [])).toBe(snapshot);
    const patched = withRootStakes(snapshot, [
      { ref: ref(11), netuid: 3, stakes: [{ uid: 0, hotkey: HOT_B, rootStakeRao: "999" }] },
    ]);
    expect(patched.neurons[0]!.rootStakeRao).toBe("100");
  });
});
