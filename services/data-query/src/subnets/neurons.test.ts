import { NeuronState } from "@platform/proto/events/v1/chain_network";
import { describe, expect, it } from "vitest";
import { describeNeuron, immunityAt } from "./neurons.js";

describe("immunityAt: the runtime's get_neuron_is_immune", () => {
  it("holds while block - registered_at < immunity_period, and counts the blocks left", () => {
    expect(immunityAt(100, 10, 100)).toEqual({ inPeriod: true, blocksLeft: "10", immunityPeriod: 10 });
    expect(immunityAt(100, 10, 109)).toEqual({ inPeriod: true, blocksLeft: "1", immunityPeriod: 10 });
    expect(immunityAt(100, 10, 110)).toEqual({ inPeriod: false, blocksLeft: "0", immunityPeriod: 10 });
    expect(immunityAt(100, 0, 100)).toEqual({ inPeriod: false, blocksLeft: "0", immunityPeriod: 0 });
  });
});

describe("describeNeuron", () => {
  const neuron = NeuronState.fromPartial({
    uid: 7,
    alphaStakeNalpha: "0",
    dividends: "0",
    vtrust: "0",
    incentive: "0.25",
    consensus: "0.25",
    emissionNalpha: "9",
    lastUpdateBlock: "10",
  });

  it("leaves immunity out without a registration block or an immunity period, and rank, trust and pruning score without the runtime's vectors", () => {
    const described = describeNeuron(neuron, "0.5", 20, 5);
    expect(described).not.toHaveProperty("immunity");
    expect(described).not.toHaveProperty("rank");
    expect(described).not.toHaveProperty("pruningScore");
    expect(described).toMatchObject({ uid: 7, totalStakeValueRao: "0", validatorTrust: "0", incentive: "0.25" });
    expect(describeNeuron({ ...neuron, registeredAtBlock: "18" }, "0.5", 20, undefined)).not.toHaveProperty("immunity");
    expect(describeNeuron({ ...neuron, registeredAtBlock: "18" }, "0.5", 20, 5).immunity).toEqual({
      inPeriod: true,
      blocksLeft: "3",
      immunityPeriod: 5,
    });
  });
});
