import { NeuronState } from "@platform/proto/events/v1/chain_network";
import { describe, expect, it } from "vitest";
import { describeValidator } from "./validators.js";

const neuron = NeuronState.fromPartial({
  uid: 0,
  validatorPermit: true,
  active: true,
  alphaStakeNalpha: "5000000000000",
  rootStakeRao: "5000000000000",
  dividends: "0.5",
  vtrust: "0.9",
  incentive: "0",
  consensus: "0",
  emissionNalpha: "1",
  lastUpdateBlock: "10",
});

describe("describeValidator", () => {
  it("values a subnet validator's alpha at the pool price and adds its root stake", () => {
    const validator = describeValidator(
      { ...neuron, alphaStakeNalpha: "2000000000000", rootStakeRao: "300" },
      "0.5",
      12,
    );
    expect(validator).toMatchObject({ totalStakeValueRao: "1000000000300", blocksSinceUpdate: "2" });
  });

  it("counts a root validator's stake once: on root the alpha stake is the root stake", () => {
    // getTotalAlphaStaked(hotkey, 0) is both the subnet stake and the root stake of a root validator.
    expect(describeValidator(neuron, "1", 12, true).totalStakeValueRao).toBe("5000000000000");
  });
});
