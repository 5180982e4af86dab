import { describe, expect, it } from "vitest";
import { blocksUntilNextEpoch, followsTempoSchedule, nextEpochBlock, readEmissions } from "./emissions.js";
import { type FakeItem, fakeRuntimeAt } from "./testSupport/runtimeAtFake.js";

const subtensor = (items: Record<string, FakeItem>) =>
  Object.fromEntries(Object.entries(items).map(([name, item]) => [`subtensorModule.${name}`, item]));
const byNetuid = (values: Record<number, unknown>, fallback?: unknown) => (netuid?: unknown) =>
  values[netuid as number] ?? fallback;

/** Spec 218 at block 98: subnet 1 (tempo 100) stepped at 98, subnet 3 (tempo 30) at 88, root (tempo 100) never yet. */
function spec218(overrides: Record<string, FakeItem> = {}) {
  return subtensor({
    emissionValues: byNetuid({ 1: 159_509_202n, 3: 24_539_877n }, 0n),
    pendingEmission: byNetuid({ 3: 1_000_000_000n }, 0n),
    blockEmission: () => 1_000_000_000n,
    subnetOwnerCut: () => 11796,
    tempo: byNetuid({ 3: 30 }, 100),
    lastMechansimStepBlock: byNetuid({ 1: 98n, 3: 88n }, 0n),
    blocksSinceLastStep: byNetuid({ 1: 0n, 3: 10n }, 98n),
    // A map by netuid in spec 218: u64::MAX is a weight of 1.
    taoWeight: byNetuid({ 1: 18_446_744_073_709_551_615n }, 0n),
    ...overrides,
  });
}

describe("readEmissions", () => {
  it("maps spec 218's items, leaving out what it does not keep", async () => {
    const emissions = await readEmissions(fakeRuntimeAt(spec218()), [0, 1, 3], 98n);

    expect(emissions.get(0)).toEqual({
      netuid: 0,
      emissionEnabled: false,
      taoInEmissionRao: "0",
      blockEmissionRao: "1000000000",
      ownerCut: "0.17999542",
      tempo: 100,
      nextEpochBlock: "99",
      taoWeight: "0",
    });
    expect(emissions.get(1)).toEqual({
      netuid: 1,
      emissionEnabled: true,
      taoInEmissionRao: "159509202",
      blockEmissionRao: "1000000000",
      ownerCut: "0.17999542",
      tempo: 100,
      lastEpochBlock: "98",
      nextEpochBlock: "199",
      taoWeight: "1",
    });
    // No per-block alpha emission, no split pending amounts (PendingEmission is their undivided total).
    expect(Object.keys(emissions.get(3)!)).toEqual([
      "netuid",
      "emissionEnabled",
      "taoInEmissionRao",
      "blockEmissionRao",
      "ownerCut",
      "tempo",
      "lastEpochBlock",
      "nextEpochBlock",
      "taoWeight",
    ]);
    expect(emissions.get(3)).toMatchObject({ lastEpochBlock: "88", nextEpochBlock: "119" });
  });

  it("reads each per-subnet item once for all subnets, and the plain items once", async () => {
    const runtime = fakeRuntimeAt(spec218());
    await readEmissions(runtime, [0, 1, 3, 4, 5], 98n);

    const items = runtime.reads
      .map((read) => `${read.kind} ${read.item.replace("subtensorModule.", "")} ${read.keys.length}`)
      .sort();
    expect(items).toEqual([
      "get blockEmission 0",
      "get subnetOwnerCut 0",
      "multi emissionValues 5",
      "multi lastMechansimStepBlock 5",
      "multi taoWeight 5",
      "multi tempo 5",
    ]);
  });

  it("predicts no next epoch when the stored steps contradict the tempo formula (the devnet's build steps every block)", async () => {
    const everyBlock = spec218({ lastMechansimStepBlock: () => 5n });
    const emissions = await readEmissions(fakeRuntimeAt(everyBlock), [0, 1, 3], 5n);

    for (const emission of emissions.values()) {
      expect(emission.lastEpochBlock).toBe("5");
      expect(emission).not.toHaveProperty("nextEpochBlock");
    }
  });

  it("predicts no next epoch for a runtime that schedules from LastEpochBlock", async () => {
    const emissions = await readEmissions(fakeRuntimeAt(spec218({ lastEpochBlock: () => 0n })), [1], 98n);

    expect(emissions.get(1)).not.toHaveProperty("nextEpochBlock");
  });

  it("reads the later runtimes' items, preferring SubnetTaoInEmission and PendingRootAlphaDivs", async () => {
    const later = spec218({
      subnetTaoInEmission: () => 11n,
      subnetAlphaInEmission: () => 12n,
      subnetAlphaOutEmission: () => 13n,
      subnetExcessTao: () => 14n,
      subnetRootSellTao: () => 15n,
      pendingServerEmission: () => 16n,
      pendingValidatorEmission: () => 17n,
      pendingRootAlphaDivs: () => 18n,
      pendingAlphaSwapped: () => 99n,
      pendingOwnerCut: () => 19n,
      // U96F32: 1.5 and 2^-32.
      rootProp: byNetuid({ 1: { bits: 3n << 31n } }, { bits: 1n }),
      subnetEmissionEnabled: () => false,
    });
    const emissions = await readEmissions(fakeRuntimeAt(later), [1, 3], 98n);

    expect(emissions.get(1)).toMatchObject({
      emissionEnabled: false,
      taoInEmissionRao: "11",
      alphaInEmissionNalpha: "12",
      alphaOutEmissionNalpha: "13",
      excessTaoRao: "14",
      rootSellTaoRao: "15",
      pendingServerNalpha: "16",
      pendingValidatorNalpha: "17",
      pendingRootAlphaNalpha: "18",
      pendingOwnerCutNalpha: "19",
      rootProp: "1.5",
    });
    expect(emissions.get(3)?.rootProp).toBe("0.000000000232830643");
  });

  it("takes the root alpha of mid-2025 runtimes from PendingAlphaSwapped", async () => {
    const emissions = await readEmissions(fakeRuntimeAt(spec218({ pendingAlphaSwapped: () => 21n })), [1], 98n);

    expect(emissions.get(1)?.pendingRootAlphaNalpha).toBe("21");
  });

  it("keeps required fields at their proto default when the runtime lacks the items", async () => {
    const emissions = await readEmissions(fakeRuntimeAt({}), [2], 10n);

    expect(emissions.get(2)).toEqual({
      netuid: 2,
      emissionEnabled: false,
      taoInEmissionRao: "",
      blockEmissionRao: "",
      tempo: 0,
    });
  });
});

describe("the tempo schedule of spec 218", () => {
  it.each([
    // The runtime's own table (`blocks_until_next_epoch` doc): tempo, netuid, first epoch block.
    { tempo: 1, netuid: 0, first: 0n },
    { tempo: 1, netuid: 1, first: 1n },
    { tempo: 2, netuid: 0, first: 1n },
    { tempo: 2, netuid: 1, first: 0n },
    { tempo: 100, netuid: 0, first: 99n },
    { tempo: 100, netuid: 1, first: 98n },
  ])("steps subnet $netuid of tempo $tempo first at block $first", ({ tempo, netuid, first }) => {
    expect(blocksUntilNextEpoch(netuid, tempo, 0n)).toBe(first);
  });

  it("counts to the next epoch after the block, whose own epoch has run", () => {
    // Subnet 3, tempo 30: epochs where (b + 4) % 31 == 30, i.e. at 26, 57, 88, 119...
    expect(nextEpochBlock(3, 30, 25n)).toBe(26n);
    expect(nextEpochBlock(3, 30, 26n)).toBe(57n);
    expect(nextEpochBlock(3, 30, 100n)).toBe(119n);
    expect(blocksUntilNextEpoch(3, 30, 88n)).toBe(0n);
  });

  it("never steps a subnet of tempo 0", () => {
    expect(nextEpochBlock(3, 0, 10n)).toBeUndefined();
    expect(followsTempoSchedule([{ netuid: 3, tempo: 0, lastStep: 0n }], 10n)).toBe(true);
    expect(followsTempoSchedule([{ netuid: 3, tempo: 0, lastStep: 10n }], 10n)).toBe(false);
  });

  it("holds when every subnet stepped exactly at its scheduled blocks", () => {
    expect(
      followsTempoSchedule(
        [
          { netuid: 3, tempo: 30, lastStep: 88n },
          { netuid: 1, tempo: 100, lastStep: 0n },
        ],
        88n,
      ),
    ).toBe(true);
    expect(followsTempoSchedule([{ netuid: 3, tempo: 30, lastStep: 57n }], 88n)).toBe(false);
    expect(followsTempoSchedule([{ netuid: 1, tempo: 100, lastStep: 88n }], 88n)).toBe(false);
    expect(followsTempoSchedule([{ netuid: 1, tempo: undefined, lastStep: 0n }], 88n)).toBe(false);
  });
});
