import { PoolMechanism } from "@platform/proto/common/v1/network";
import { describe, expect, it } from "vitest";
import { readEmissionEnabled, readSubnetDetails } from "./subnetDetails.js";
import { type FakeItem, fakeRuntimeAt } from "./testSupport/runtimeAtFake.js";

const ALICE = "0xd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d";
const BOB = "0x8eaf04151687736326c9fea17e25fc5287613693c912909cb226aa4794f26a48";
const ZERO = `0x${"0".repeat(64)}`;

/** `Bytes` as dedot decodes them. */
const bytes = (text: string) => `0x${Buffer.from(text, "utf8").toString("hex")}`;
/** An AccountId32 as dedot decodes it. */
const account = (publicKey: string) => ({ raw: publicKey });
const subtensor = (items: Record<string, FakeItem>) =>
  Object.fromEntries(Object.entries(items).map(([name, item]) => [`subtensorModule.${name}`, item]));
const byNetuid = (values: Record<number, unknown>, fallback?: unknown) => (netuid?: unknown) =>
  values[netuid as number] ?? fallback;

/** SubtensorModule of spec 218 as the devnet's runtime holds it: root (0) and one dynamic subnet (2). */
function spec218(overrides: Record<string, FakeItem> = {}) {
  return subtensor({
    subnetOwner: byNetuid({ 2: account(ALICE) }, account(ZERO)),
    subnetOwnerHotkey: byNetuid({ 2: account(BOB) }, account(ZERO)),
    tokenSymbol: byNetuid({ 2: bytes("β") }, bytes("𝜏")),
    subnetIdentities: [
      [
        2,
        {
          subnetName: bytes("seed-alpha"),
          githubRepo: bytes("https://github.com/example/seed-alpha"),
          subnetContact: bytes("a@example.com"),
        },
      ],
    ],
    networkRegisteredAt: byNetuid({ 2: 2n }, 0n),
    subnetMechanism: byNetuid({ 2: 1 }, 0),
    tempo: byNetuid({ 0: 100 }, 30),
    subnetworkN: byNetuid({ 2: 3 }, 0),
    maxAllowedUids: byNetuid({ 0: 64 }, 256),
    maxAllowedValidators: () => 64,
    networkRegistrationAllowed: () => true,
    networkPowRegistrationAllowed: () => false,
    burn: () => 1_000_000_000n,
    minBurn: () => 1n,
    maxBurn: () => 100_000_000_000n,
    difficulty: () => 10_000_000n,
    raoRecycledForRegistration: byNetuid({ 2: 2_000_000_000n }, 0n),
    commitRevealWeightsEnabled: byNetuid({ 2: true }, false),
    revealPeriodEpochs: () => 1n,
    liquidAlphaOn: () => false,
    alphaValues: () => [45875, 58982],
    rho: () => 10,
    kappa: () => 32767,
    immunityPeriod: () => 5000,
    minAllowedWeights: () => 1,
    maxWeightsLimit: () => 65535,
    weightsVersionKey: () => 0n,
    weightsSetRateLimit: () => 100n,
    activityCutoff: () => 5000,
    adjustmentAlpha: () => 17_893_341_751_498_265_066n,
    bondsMovingAverage: () => 990_000n,
    servingRateLimit: () => 50n,
    emissionValues: byNetuid({ 2: 582_822_085n }, 0n),
    ...overrides,
  });
}

describe("readSubnetDetails: spec 218 and batched reads", () => {
  it("maps every item of spec 218 to the SubnetSnapshot fields", async () => {
    const details = await readSubnetDetails(fakeRuntimeAt(spec218()), [2]);

    expect(details.get(2)).toEqual({
      netuid: 2,
      name: "seed-alpha",
      symbol: "β",
      // Spec 218's identity has three fields; the newer ones stay at the proto default.
      identity: {
        subnetName: "seed-alpha",
        githubRepo: "https://github.com/example/seed-alpha",
        subnetContact: "a@example.com",
        subnetUrl: "",
        discord: "",
        description: "",
        logoUrl: "",
        additional: "",
      },
      ownerColdkey: { ss58: "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY", publicKey: ALICE, evmH160: undefined },
      ownerHotkey: { ss58: "5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty", publicKey: BOB, evmH160: undefined },
      registeredAtBlock: "2",
      mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
      tempo: 30,
      uidCount: 3,
      maxUids: 256,
      maxValidators: 64,
      registration: {
        allowed: true,
        powAllowed: false,
        burnRao: "1000000000",
        minBurnRao: "1",
        maxBurnRao: "100000000000",
        difficulty: "10000000",
        recycledTotalRao: "2000000000",
      },
      emissionEnabled: true,
      commitReveal: { enabled: true, interval: "1" },
      liquidAlpha: { enabled: false, alphaLow: "0.70000762", alphaHigh: "0.90000762" },
      // Spec 218 has no `Yuma3On`: the original Yuma.
      yuma3Enabled: false,
      hyperparameters: {
        rho: 10,
        kappa: 32767,
        immunityPeriod: 5000,
        minAllowedWeights: 1,
        maxWeightLimit: 65535,
        weightsVersion: "0",
        weightsRateLimit: "100",
        activityCutoff: 5000,
        adjustmentAlpha: "17893341751498265066",
        bondsMovingAverage: "990000",
        servingRateLimit: "50",
        alphaSigmoidSteepness: 0,
      },
    });
  });

  it("reads each item once for all subnets", async () => {
    const runtime = fakeRuntimeAt(spec218());
    const details = await readSubnetDetails(runtime, [0, 2, 3, 4]);

    expect([...details.keys()]).toEqual([0, 2, 3, 4]);
    expect(runtime.reads.every((read) => read.kind === "multi" && read.keys.length === 4)).toBe(true);
    const items = runtime.reads.map((read) => read.item);
    expect(new Set(items).size).toBe(items.length);
  });

  it("leaves out the owner a subnet lacks (the all-zero default account), and the name of a subnet without identity", async () => {
    const root = (await readSubnetDetails(fakeRuntimeAt(spec218()), [0])).get(0)!;

    expect(root).not.toHaveProperty("ownerColdkey");
    expect(root).not.toHaveProperty("ownerHotkey");
    expect(root).not.toHaveProperty("identity");
    expect(root).not.toHaveProperty("name");
    expect(root.symbol).toBe("𝜏");
    expect(root.mechanism).toBe(PoolMechanism.POOL_MECHANISM_STABLE);
    expect(root.emissionEnabled).toBe(false);
  });
});

describe("readSubnetDetails: what a runtime lacks or adds", () => {
  it("leaves out what the runtime does not keep, and keeps required fields at their proto default", async () => {
    const runtime = fakeRuntimeAt(subtensor({ tempo: () => 99, burn: () => 5n }));
    const details = (await readSubnetDetails(runtime, [7])).get(7)!;

    expect(details).toEqual({
      netuid: 7,
      registeredAtBlock: "0",
      mechanism: PoolMechanism.POOL_MECHANISM_UNSPECIFIED,
      tempo: 99,
      uidCount: 0,
      emissionEnabled: false,
      yuma3Enabled: false,
      hyperparameters: {
        rho: 0,
        kappa: 0,
        immunityPeriod: 0,
        minAllowedWeights: 0,
        maxWeightLimit: 0,
        weightsVersion: "0",
        weightsRateLimit: "0",
        activityCutoff: 0,
        adjustmentAlpha: "0",
        bondsMovingAverage: "0",
        servingRateLimit: "0",
        alphaSigmoidSteepness: 0,
      },
    });
  });

  it("keeps registration and liquid alpha with the settings it has, the rest at the proto default", async () => {
    const runtime = fakeRuntimeAt(subtensor({ networkRegistrationAllowed: () => false, liquidAlphaOn: () => true }));
    const details = (await readSubnetDetails(runtime, [1])).get(1)!;

    expect(details.registration).toEqual({
      allowed: false,
      powAllowed: false,
      burnRao: "",
      minBurnRao: "",
      maxBurnRao: "",
      difficulty: "0",
    });
    expect(details.liquidAlpha).toEqual({ enabled: true, alphaLow: "", alphaHigh: "" });
    expect(details).not.toHaveProperty("commitReveal");
  });

  it.each([
    { values: [0, 65535], low: "0", high: "1" },
    { values: [32768, 65534], low: "0.50000762", high: "0.99998474" },
  ])("normalises the alpha values $values as u16 ratios", async ({ values, low, high }) => {
    const details = (
      await readSubnetDetails(fakeRuntimeAt(spec218({ alphaValues: () => values, liquidAlphaOn: () => true })), [2])
    ).get(2)!;

    expect(details.liquidAlpha).toEqual({ enabled: true, alphaLow: low, alphaHigh: high });
  });

  it("reads the later runtimes' items: transfers, Yuma3, sigmoid steepness", async () => {
    const runtime = fakeRuntimeAt(
      spec218({ transferToggle: () => false, yuma3On: () => true, alphaSigmoidSteepness: () => 1000 }),
    );
    const details = (await readSubnetDetails(runtime, [2])).get(2)!;

    expect(details.transfersEnabled).toBe(false);
    expect(details.yuma3Enabled).toBe(true);
    expect(details.hyperparameters?.alphaSigmoidSteepness).toBe(1000);
  });

  it("keeps a negative steepness (an i16) at the proto default rather than wrapping it into a uint32", async () => {
    const details = (await readSubnetDetails(fakeRuntimeAt(spec218({ alphaSigmoidSteepness: () => -300 })), [2])).get(
      2,
    )!;

    expect(details.hyperparameters?.alphaSigmoidSteepness).toBe(0);
  });
});

describe("readSubnetDetails: identity", () => {
  const v1 = { subnetName: bytes("one"), githubRepo: bytes("g1"), subnetContact: bytes("c1") };
  const v2 = {
    subnetName: bytes("two"),
    githubRepo: bytes("g2"),
    subnetContact: bytes("c2"),
    subnetUrl: bytes("u2"),
    discord: bytes("d2"),
    description: bytes("x2"),
    additional: bytes("a2"),
  };
  const v3 = { ...v2, subnetName: bytes("three"), logoUrl: bytes("l3") };

  it("prefers SubnetIdentitiesV3 over V2 and the plain map", async () => {
    const runtime = fakeRuntimeAt(
      spec218({ subnetIdentitiesV3: [[2, v3]], subnetIdentitiesV2: [[2, v2]], subnetIdentities: [[2, v1]] }),
    );
    const details = (await readSubnetDetails(runtime, [2])).get(2)!;

    expect(details.name).toBe("three");
    expect(details.identity).toEqual({
      subnetName: "three",
      githubRepo: "g2",
      subnetContact: "c2",
      subnetUrl: "u2",
      discord: "d2",
      description: "x2",
      logoUrl: "l3",
      additional: "a2",
    });
    expect(runtime.reads.map((read) => read.item)).not.toContain("subtensorModule.subnetIdentitiesV2");
  });

  it("falls back to V2 (no logo) when the runtime has no V3", async () => {
    const runtime = fakeRuntimeAt(spec218({ subnetIdentitiesV2: [[2, v2]], subnetIdentities: [[2, v1]] }));
    const details = (await readSubnetDetails(runtime, [2])).get(2)!;

    expect(details.identity).toEqual({
      subnetName: "two",
      githubRepo: "g2",
      subnetContact: "c2",
      subnetUrl: "u2",
      discord: "d2",
      description: "x2",
      logoUrl: "",
      additional: "a2",
    });
  });

  it("falls back to the plain map (spec 218) when the runtime has neither", async () => {
    const details = (await readSubnetDetails(fakeRuntimeAt(spec218({ subnetIdentities: [[2, v1]] })), [2])).get(2)!;

    expect(details.name).toBe("one");
    expect(details.identity?.subnetContact).toBe("c1");
  });

  it("gives no name for an identity whose name is empty, but keeps the identity", async () => {
    const details = (
      await readSubnetDetails(fakeRuntimeAt(spec218({ subnetIdentities: [[2, { ...v1, subnetName: "0x" }]] })), [2])
    ).get(2)!;

    expect(details).not.toHaveProperty("name");
    expect(details.identity?.githubRepo).toBe("g1");
  });
});

describe("readEmissionEnabled", () => {
  it("is off for root, on for a subnet that received TAO this block (spec 218: EmissionValues)", async () => {
    const enabled = await readEmissionEnabled(
      fakeRuntimeAt(spec218({ emissionValues: byNetuid({ 0: 5n, 2: 1n }, 0n) })),
      [0, 2, 3],
    );

    expect(enabled).toEqual(
      new Map([
        [0, false],
        [2, true],
        [3, false],
      ]),
    );
  });

  it("prefers SubnetTaoInEmission, counts alpha out emission, and takes SubnetEmissionEnabled where stored", async () => {
    const later = subtensor({
      subnetTaoInEmission: byNetuid({ 1: 3n }, 0n),
      emissionValues: () => 0n,
      subnetAlphaOutEmission: byNetuid({ 2: 7n }, 0n),
    });
    expect(await readEmissionEnabled(fakeRuntimeAt(later), [1, 2, 3])).toEqual(
      new Map([
        [1, true],
        [2, true],
        [3, false],
      ]),
    );

    const stored = fakeRuntimeAt({ ...later, "subtensorModule.subnetEmissionEnabled": byNetuid({ 1: false }, true) });
    expect(await readEmissionEnabled(stored, [0, 1, 3])).toEqual(
      new Map([
        [0, false],
        [1, false],
        [3, true],
      ]),
    );
  });

  it("is taken from the caller without reading emission items", async () => {
    const runtime = fakeRuntimeAt(spec218());
    const details = await readSubnetDetails(runtime, [2], new Map([[2, false]]));

    expect(details.get(2)?.emissionEnabled).toBe(false);
    expect(runtime.reads.map((read) => read.item)).not.toContain("subtensorModule.emissionValues");
  });
});
