import { describe, expect, it } from "vitest";
import { axonInfo, ipText, readMetagraphs } from "./metagraph.js";
import { type FakeItem, fakeRuntimeAt } from "./testSupport/runtimeAtFake.js";

const key = (byte: number) => `0x${byte.toString(16).padStart(2, "0").repeat(32)}`;
const [HOT_A, HOT_B, HOT_C, COLD_A, COLD_B] = [key(0xa1), key(0xb1), key(0xc1), key(0xa2), key(0xb2)] as const;
const ZERO = `0x${"0".repeat(64)}`;
const account = (publicKey: string) => ({ raw: publicKey });
const bytes = (text: string) => `0x${Buffer.from(text, "utf8").toString("hex")}`;
const subtensor = (items: Record<string, FakeItem>) =>
  Object.fromEntries(Object.entries(items).map(([name, item]) => [`subtensorModule.${name}`, item]));
/** A map by key (compared as JSON), with a default for the rest, as a ValueQuery reads. */
const table = (entries: [unknown, unknown][], fallback?: unknown) => (input?: unknown) =>
  entries.find(([stored]) => JSON.stringify(stored) === JSON.stringify(input))?.[1] ?? fallback;
const byNetuid = (values: Record<number, unknown>) => (netuid?: unknown) => values[netuid as number] ?? [];

/**
 * Subnet 2: uid 0 hotkey A (coldkey A, a delegate with an identity), uid 1 hotkey B (coldkey B);
 * subnet 3: uid 0 hotkey A again, uid 1 hotkey C, whose owner the runtime lacks. Keys are listed
 * out of uid order, as a node may answer them.
 */
function spec218(overrides: Record<string, FakeItem> = {}) {
  return subtensor({
    keys: [
      [[2, 1], account(HOT_B)],
      [[2, 0], account(HOT_A)],
      [[3, 0], account(HOT_A)],
      [[3, 1], account(HOT_C)],
    ],
    active: byNetuid({ 2: [true, false], 3: [true, true] }),
    validatorPermit: byNetuid({ 2: [true, false], 3: [false, true] }),
    dividends: byNetuid({ 2: [65535, 0], 3: [0, 32768] }),
    incentive: byNetuid({ 2: [0, 65535], 3: [1, 2] }),
    consensus: byNetuid({ 2: [100, 200], 3: [3, 4] }),
    validatorTrust: byNetuid({ 2: [65534, 0], 3: [5, 6] }),
    emission: byNetuid({ 2: [910_002_289n, 0n], 3: [7n, 8n] }),
    lastUpdate: byNetuid({ 2: [2n, 3n], 3: [9n, 10n] }),
    rank: byNetuid({ 2: [65535, 0], 3: [1, 1] }),
    trust: byNetuid({ 2: [0, 32768], 3: [1, 1] }),
    pruningScores: byNetuid({ 2: [1, 65535], 3: [1, 1] }),
    // An OptionQuery: only hotkey B served one, on subnet 2 (192.168.1.1:8091).
    axons: table([
      [
        [2, HOT_B],
        {
          block: 7n,
          version: 9,
          ip: 3_232_235_777n,
          port: 8091,
          ipType: 4,
          protocol: 4,
          placeholder1: 0,
          placeholder2: 0,
        },
      ],
    ]),
    blockAtRegistration: table(
      [
        [[2, 0], 2n],
        [[2, 1], 3n],
        [[3, 0], 4n],
        [[3, 1], 5n],
      ],
      0n,
    ),
    owner: table(
      [
        [HOT_A, account(COLD_A)],
        [HOT_B, account(COLD_B)],
      ],
      account(ZERO),
    ),
    totalHotkeyAlpha: table(
      [
        [[HOT_A, 2], 2_999_999_997n],
        [[HOT_A, 0], 50n],
        [[HOT_C, 3], 11n],
      ],
      0n,
    ),
    // The last epoch's dividends by (netuid, hotkey), a ValueQuery (0 for a hotkey paid nothing).
    hotkeyDividendsPerSubnet: table([[[2, HOT_A], 1_000_000_007n]], 0n),
    delegates: table([[HOT_A, 0]], 11796),
    childkeyTake: table([[[HOT_A, 3], 6553]], 0),
    identities: [
      [
        COLD_A,
        {
          name: bytes("Alice validator"),
          url: bytes("https://alice.example"),
          image: bytes("img"),
          discord: bytes("alice#1"),
          description: bytes("the first"),
          additional: bytes("more"),
        },
      ],
    ],
    ...overrides,
  });
}

describe("readMetagraphs: spec 218 items and batched reads", () => {
  it("maps every item of spec 218 to the neurons, ordered by uid", async () => {
    const metagraphs = await readMetagraphs(fakeRuntimeAt(spec218()), [2]);

    expect(metagraphs.get(2)).toEqual([
      {
        uid: 0,
        hotkey: { ss58: expect.any(String), publicKey: HOT_A, evmH160: undefined },
        coldkey: { ss58: expect.any(String), publicKey: COLD_A, evmH160: undefined },
        validatorPermit: true,
        active: true,
        registeredAtBlock: "2",
        take: "0",
        childkeyTake: "0",
        alphaStakeNalpha: "2999999997",
        rootStakeRao: "50",
        dividends: "1",
        vtrust: "0.99998474",
        incentive: "0",
        consensus: "0.0015259",
        emissionNalpha: "910002289",
        lastUpdateBlock: "2",
        rank: "1",
        trust: "0",
        pruningScore: "0.00001525",
        hotkeyDividendsNalpha: "1000000007",
        // Spec 218's identity has no github repo: the proto default.
        identity: {
          name: "Alice validator",
          url: "https://alice.example",
          githubRepo: "",
          image: "img",
          discord: "alice#1",
          description: "the first",
          additional: "more",
        },
      },
      {
        uid: 1,
        hotkey: { ss58: expect.any(String), publicKey: HOT_B, evmH160: undefined },
        coldkey: { ss58: expect.any(String), publicKey: COLD_B, evmH160: undefined },
        validatorPermit: false,
        active: false,
        registeredAtBlock: "3",
        // Not a delegate: the ValueQuery default, the take the runtime applies to it.
        take: "0.17999542",
        childkeyTake: "0",
        alphaStakeNalpha: "0",
        rootStakeRao: "0",
        dividends: "0",
        vtrust: "0",
        incentive: "1",
        consensus: "0.0030518",
        emissionNalpha: "0",
        lastUpdateBlock: "3",
        rank: "0",
        trust: "0.50000762",
        pruningScore: "1",
        axon: { ip: "192.168.1.1", port: 8091, ipType: 4, protocol: 4, version: 9, block: "7" },
        hotkeyDividendsNalpha: "0",
      },
    ]);
  });

  it("reads per subnet, hotkey and coldkey values in one batch each, whatever the number of neurons", async () => {
    const runtime = fakeRuntimeAt(spec218());
    const metagraphs = await readMetagraphs(runtime, [2, 3]);

    expect(
      metagraphs
        .get(3)
        ?.map((neuron) => [neuron.uid, neuron.hotkey?.publicKey, neuron.childkeyTake, neuron.alphaStakeNalpha]),
    ).toEqual([
      [0, HOT_A, "0.09999237", "0"],
      [1, HOT_C, "0", "11"],
    ]);
    const reads = runtime.reads
      .map((read) => `${read.kind} ${read.item.replace("subtensorModule.", "")} ${read.keys.length}`)
      .sort();
    expect(reads).toEqual([
      "entries keys 1",
      "entries keys 1",
      "multi active 2",
      "multi axons 4",
      "multi blockAtRegistration 4",
      "multi childkeyTake 4",
      "multi consensus 2",
      "multi delegates 3",
      "multi dividends 2",
      "multi emission 2",
      "multi hotkeyDividendsPerSubnet 4",
      // The distinct coldkeys the runtime knows (C's owner is the zero default).
      "multi identities 2",
      "multi incentive 2",
      "multi lastUpdate 2",
      "multi owner 3",
      "multi pruningScores 2",
      "multi rank 2",
      // Alpha on each (hotkey, subnet), root stake on each distinct hotkey.
      "multi totalHotkeyAlpha 3",
      "multi totalHotkeyAlpha 4",
      "multi trust 2",
      "multi validatorPermit 2",
      "multi validatorTrust 2",
    ]);
  });
});

describe("readMetagraphs: missing values, identities and Keys", () => {
  it("leaves out the coldkey of a hotkey without owner (the zero default) and its identity", async () => {
    const neuron = (await readMetagraphs(fakeRuntimeAt(spec218()), [3])).get(3)![1]!;

    expect(neuron).not.toHaveProperty("coldkey");
    expect(neuron).not.toHaveProperty("identity");
  });

  it("gives the proto default to a uid beyond the end of a vector", async () => {
    const runtime = fakeRuntimeAt(
      spec218({
        active: byNetuid({ 2: [true] }),
        dividends: byNetuid({ 2: [] }),
        emission: byNetuid({ 2: [1n] }),
        lastUpdate: byNetuid({}),
      }),
    );
    const neuron = (await readMetagraphs(runtime, [2])).get(2)![1]!;

    expect(neuron).toMatchObject({
      active: false,
      dividends: "",
      emissionNalpha: "",
      lastUpdateBlock: "0",
      incentive: "1",
    });
  });

  it("leaves out what the runtime does not keep", async () => {
    const runtime = fakeRuntimeAt(subtensor({ keys: [[[5, 0], account(HOT_A)]] }));
    const neurons = (await readMetagraphs(runtime, [5])).get(5);

    expect(neurons).toEqual([
      {
        uid: 0,
        hotkey: { ss58: expect.any(String), publicKey: HOT_A, evmH160: undefined },
        validatorPermit: false,
        active: false,
        alphaStakeNalpha: "",
        dividends: "",
        vtrust: "",
        incentive: "",
        consensus: "",
        emissionNalpha: "",
        lastUpdateBlock: "0",
      },
    ]);
  });

  it("prefers IdentitiesV2 (with a github repo) over the plain map", async () => {
    const v2 = {
      name: bytes("v2"),
      url: bytes("u"),
      githubRepo: bytes("gh"),
      image: bytes("i"),
      discord: bytes("d"),
      description: bytes("x"),
      additional: bytes("a"),
    };
    const neuron = (await readMetagraphs(fakeRuntimeAt(spec218({ identitiesV2: [[COLD_A, v2]] })), [2])).get(2)![0]!;

    expect(neuron.identity).toEqual({
      name: "v2",
      url: "u",
      githubRepo: "gh",
      image: "i",
      discord: "d",
      description: "x",
      additional: "a",
    });
  });

  it("answers an empty metagraph for a subnet without neurons, and reads nothing per neuron then", async () => {
    const runtime = fakeRuntimeAt(spec218());
    expect(await readMetagraphs(runtime, [9])).toEqual(new Map([[9, []]]));
    expect(runtime.reads.filter((read) => read.item.endsWith(".owner") || read.item.endsWith(".delegates"))).toEqual(
      [],
    );
  });

  it("fails on a Keys entry of a shape it does not know, rather than dropping the uid", async () => {
    await expect(readMetagraphs(fakeRuntimeAt(spec218({ keys: [[[2, 0], "not an account"]] })), [2])).rejects.toThrow(
      /unexpected entry shape/,
    );
  });

  it("reads Keys as one map when it reads many subnets, and gives each subnet its own UIDs", async () => {
    const netuids = Array.from({ length: 20 }, (_, index) => index + 10);
    const runtime = fakeRuntimeAt(
      spec218({
        keys: [
          ...netuids.map((netuid) => [[netuid, 0], account(HOT_A)] as [unknown, unknown]),
          [[2, 0], account(HOT_B)],
        ],
      }),
    );
    const metagraphs = await readMetagraphs(runtime, netuids);
    expect(
      [...metagraphs.values()].map((neurons) => neurons.map((neuron) => [neuron.uid, neuron.hotkey?.publicKey])),
    ).toEqual(netuids.map(() => [[0, HOT_A]]));
    expect(
      runtime.reads.filter((read) => read.item === "subtensorModule.keys").map((read) => [read.kind, read.keys]),
    ).toEqual([["entries", []]]);
  });
});

describe("axonInfo: the runtime's AxonInfo", () => {
  it("writes IPv4 dotted and IPv6 in RFC 5952's compressed form", () => {
    expect(ipText(0x7f00_0001n, 4)).toBe("127.0.0.1");
    expect(ipText(1n, 6)).toBe("::1");
    expect(ipText(0x2001_0db8_0000_0000_0000_0000_0000_00ffn, 6)).toBe("2001:db8::ff");
  });

  it("is absent for a hotkey that served none (OptionQuery)", () => {
    expect(axonInfo(undefined)).toBeUndefined();
    expect(axonInfo({ block: 1n, version: 0, ip: 0n, port: 0, ipType: 4, protocol: 0 })).toEqual({
      ip: "0.0.0.0",
      port: 0,
      ipType: 4,
      protocol: 0,
      version: 0,
      block: "1",
    });
  });
});
