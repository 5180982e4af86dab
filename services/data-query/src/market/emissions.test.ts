import { EmissionSnapshot } from "@platform/proto/events/v1/chain_network";
import { describe, expect, it } from "vitest";
import { describeEmission } from "./emissions.js";

const snapshot = (blockEmissionRao: string): EmissionSnapshot => ({
  ...EmissionSnapshot.fromPartial({}),
  netuid: 1,
  emissionEnabled: true,
  taoInEmissionRao: "250000000",
  alphaInEmissionNalpha: "5000000000",
  alphaOutEmissionNalpha: "1000000000",
  blockEmissionRao,
});

describe("describeEmission", () => {
  it("gives the subnet's share of the block emission", () => {
    expect(describeEmission(snapshot("1000000000"), undefined, 10).taoEmissionShare).toBe("0.25");
  });

  it("leaves the share unknown (empty) when the block emission is, instead of failing the whole answer", () => {
    // The devnet's chain source has no StorageQuery reader for `BlockEmission` yet: the snapshot carries "".
    const emission = describeEmission(snapshot(""), undefined, 10);
    expect(emission.taoEmissionShare).toBe("");
    expect(emission).toMatchObject({
      taoInEmissionRao: "250000000",
      alphaOutEmissionNalpha: "1000000000",
      perDayEstimate: { taoInRao: "1800000000000" },
    });
  });
});
