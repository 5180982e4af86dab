import { describe, expect, it } from "vitest";
import {
  type ConfiguredChainInput,
  chainConfigSchema,
  configuredChainSchema,
  type RouteConfigInput,
  routeSchema,
} from "./chainConfig.js";

const chain = (overrides: Partial<ConfiguredChainInput> = {}): ConfiguredChainInput => ({
  name: "origin",
  chainId: 31337,
  rpcUrl: "http://127.0.0.1:8545",
  roles: ["origin"],
  blockTimeMs: 1000,
  finality: { safeDepth: 1, finalizedDepth: 3 },
  ...overrides,
});

function issuesOf(input: unknown): string[] {
  const result = chainConfigSchema.safeParse(input);
  if (result.success) return [];
  return result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

describe("configuredChainSchema", () => {
  it("fills transport, currency and contract defaults", () => {
    expect(configuredChainSchema.parse(chain())).toEqual({
      ...chain(),
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpc: { timeoutMs: 10_000, retryCount: 3, retryDelayMs: 150 },
      contracts: {},
    });
  });

  it("checksums contract addresses given in any case", () => {
    const parsed = configuredChainSchema.parse(
      chain({ contracts: { multicall3: "0xca11bde05977b3631167028862be2a173976ca11" } }),
    );
    expect(parsed.contracts.multicall3).toBe("0xcA11bde05977b3631167028862bE2a173976CA11");
  });

  it("takes the devnet's wallet factory and tokens by symbol, checksummed", () => {
    const parsed = configuredChainSchema.parse(
      chain({
        contracts: {
          walletFactory: "0xca11bde05977b3631167028862be2a173976ca11",
          tokens: {
            USDC: "0xca11bde05977b3631167028862be2a173976ca11",
            "USDC.e": "0xca11bde05977b3631167028862be2a173976ca11",
          },
        },
      }),
    );
    expect(parsed.contracts.walletFactory).toBe("0xcA11bde05977b3631167028862bE2a173976CA11");
    expect(parsed.contracts.tokens).toEqual({
      USDC: "0xcA11bde05977b3631167028862bE2a173976CA11",
      "USDC.e": "0xcA11bde05977b3631167028862bE2a173976CA11",
    });
  });

  it("takes a chain's price feed, checksummed, whatever its role", () => {
    const parsed = configuredChainSchema.parse(
      chain({ roles: ["origin"], contracts: { priceFeed: "0xca11bde05977b3631167028862be2a173976ca11" } }),
    );
    expect(parsed.contracts.priceFeed).toBe("0xcA11bde05977b3631167028862bE2a173976CA11");
  });

  it.each([
    ["a non-http RPC URL", { rpcUrl: "ws://127.0.0.1:8545" }, "rpcUrl"],
    ["an unknown role", { roles: ["bridge"] }, "roles.0"],
    ["no role", { roles: [] }, "roles"],
    ["a repeated role", { roles: ["origin", "origin"] }, "roles"],
    ["a bad address", { contracts: { fullSettler: "0x1234" } }, "contracts.fullSettler"],
    ["a bad price feed address", { contracts: { priceFeed: "0x1234" } }, "contracts.priceFeed"],
    ["a token with a bad address", { contracts: { tokens: { USDC: "0x1234" } } }, "contracts.tokens.USDC"],
    [
      "a token symbol with spaces",
      { contracts: { tokens: { "US DC": "0xca11bde05977b3631167028862be2a173976ca11" } } },
      "contracts.tokens.US DC",
    ],
    [
      "a misspelt contract key",
      { contracts: { multicall: "0xca11bde05977b3631167028862be2a173976ca11" } },
      "contracts",
    ],
    ["finalized shallower than safe", { finality: { safeDepth: 5, finalizedDepth: 2 } }, "finality.finalizedDepth"],
    ["a fractional chain id", { chainId: 1.5 }, "chainId"],
    ["an upper-case name", { name: "Origin" }, "name"],
  ])("rejects %s", (_what, overrides, path) => {
    const result = configuredChainSchema.safeParse({ ...chain(), ...overrides });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join("."))).toContain(path);
  });
});

describe("chainConfigSchema", () => {
  it("accepts one chain per role", () => {
    const config = {
      environment: "local",
      chains: [
        chain(),
        chain({ name: "destination", chainId: 31338, roles: ["destination"] }),
        chain({ name: "subtensor", chainId: 31964, roles: ["native"] }),
      ],
    };
    expect(issuesOf(config)).toEqual([]);
  });

  it("rejects repeated names and chain ids, pointing at the repeat", () => {
    expect(issuesOf({ environment: "local", chains: [chain(), chain()] })).toEqual([
      "chains.1.name: repeats chains[0].name",
      "chains.1.chainId: repeats chains[0].chainId",
    ]);
  });

  it("rejects a second native network", () => {
    const chains = [
      chain({ name: "a", chainId: 1, roles: ["native"] }),
      chain({ name: "b", chainId: 2, roles: ["origin", "native"] }),
    ];
    expect(issuesOf({ environment: "local", chains })).toEqual([
      "chains.1.roles: a second chain with role native (first is chains[0])",
    ]);
  });

  it("rejects a second chain with a price feed", () => {
    const feed = { priceFeed: "0xca11bde05977b3631167028862be2a173976ca11" };
    const chains = [
      chain({ name: "origin", chainId: 31337, roles: ["origin"], contracts: feed }),
      chain({ name: "destination", chainId: 31338, roles: ["destination"] }),
      chain({ name: "subtensor", chainId: 31964, roles: ["native"], contracts: feed }),
    ];
    expect(issuesOf({ environment: "local", chains })).toEqual([
      "chains.2.contracts.priceFeed: a second chain with a price feed (first is chains[0])",
    ]);
    expect(issuesOf({ environment: "local", chains: chains.slice(0, 2) })).toEqual([]);
  });

  it("rejects an empty chain list and unknown top-level keys", () => {
    expect(issuesOf({ environment: "local", chains: [] })).toHaveLength(1);
    expect(issuesOf({ environment: "local", chains: [chain()], tokens: [] })).toHaveLength(1);
  });
});

const TOKEN = "0xca11bde05977b3631167028862be2a173976ca11";
const route = (overrides: Partial<RouteConfigInput> = {}): RouteConfigInput => ({
  originChainId: 31337,
  destinationChainId: 31338,
  inputToken: "USDC",
  outputToken: "USDC",
  fee: { bps: 5, fixed: "100000" },
  limits: { min: "1000000", max: "100000000000" },
  fillTimeEstimateSeconds: 12,
  quoteTtlSeconds: 60,
  ...overrides,
});
const intentChains = (tokens?: Record<string, string>) => [
  chain({ contracts: tokens ? { tokens } : {} }),
  chain({ name: "destination", chainId: 31338, roles: ["destination"], contracts: tokens ? { tokens } : {} }),
  chain({ name: "subtensor", chainId: 31964, roles: ["native"] }),
];

describe("routeSchema", () => {
  it("keeps amounts as decimal strings and checksums token addresses", () => {
    const parsed = routeSchema.parse(route({ inputToken: TOKEN }));
    expect(parsed.inputToken).toBe("0xcA11bde05977b3631167028862bE2a173976CA11");
    expect(parsed.outputToken).toBe("USDC");
    expect(parsed.fee).toEqual({ bps: 5, fixed: "100000" });
    // uint256-sized limits survive (JSON numbers would not)
    expect(
      routeSchema.parse(
        route({
          limits: {
            min: "1000000",
            max: "115792089237316195423570985008687907853269984665640564039457584007913129639935",
          },
        }),
      ).limits.max,
    ).toHaveLength(78);
  });

  it.each([
    ["the same chain on both ends", { destinationChainId: 31337 }, "destinationChainId"],
    ["min above max", { limits: { min: "5000000", max: "10" } }, "limits.max"],
    ["a minimum the fee eats", { fee: { bps: 0, fixed: "1000000" } }, "limits.min"],
    ["a fee of 100 %", { fee: { bps: 10_000, fixed: "0" } }, "fee.bps"],
    ["an amount as a JSON number", { limits: { min: 1_000_000, max: "10" } }, "limits.min"],
    ["a negative amount", { fee: { bps: 1, fixed: "-1" } }, "fee.fixed"],
    ["a very long quote lifetime", { quoteTtlSeconds: 86_400 }, "quoteTtlSeconds"],
    ["a misspelt key", { fillTimeSeconds: 5 }, ""],
  ])("rejects %s", (_what, overrides, path) => {
    const result = routeSchema.safeParse({ ...route(), ...overrides });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join("."))).toContain(path);
  });
});

describe("chainConfigSchema routes", () => {
  it("defaults to no routes", () => {
    expect(chainConfigSchema.parse({ environment: "local", chains: intentChains() }).routes).toEqual([]);
  });

  it("accepts symbols in both directions before tokens are deployed, and once they are", () => {
    const routes = [
      route(),
      route({ originChainId: 31338, destinationChainId: 31337 }),
      route({ inputToken: "ETH", outputToken: "0x0000000000000000000000000000000000000000" }),
    ];
    expect(issuesOf({ environment: "local", chains: intentChains(), routes })).toEqual([]);
    expect(issuesOf({ environment: "local", chains: intentChains({ USDC: TOKEN }), routes })).toEqual([]);
    expect(
      issuesOf({ environment: "local", chains: intentChains({ USDC: TOKEN }), routes: [route({ inputToken: TOKEN })] }),
    ).toEqual([]);
  });

  it("names a missing chain, a chain without an intents role, unknown tokens and a repeated route", () => {
    const routes = [
      route({ originChainId: 1 }),
      route({ destinationChainId: 31964 }),
      route({ inputToken: "WETH", outputToken: "0x0000000000000000000000000000000000000001" }),
      route(),
      route(),
    ];
    expect(issuesOf({ environment: "local", chains: intentChains({ USDC: TOKEN }), routes })).toEqual([
      "routes.0.originChainId: no chain with chainId 1",
      "routes.1.destinationChainId: chain subtensor has no intents role (origin or destination)",
      "routes.2.inputToken: WETH is not a token symbol of chain origin (contracts.tokens) nor its native currency ETH",
      "routes.2.outputToken: 0x0000000000000000000000000000000000000001 is not a token of chain destination (contracts.tokens) nor the native coin (zero address)",
      "routes.4: repeats routes[3]",
    ]);
  });
});

describe("the native network's Substrate side", () => {
  const base = { environment: "local", chains: [chain({ roles: ["origin"] })] };
  const substrate = {
    name: "bittensor",
    chainId: 945,
    rpcUrl: "ws://127.0.0.1:9944",
    blockTimeMs: 2000,
    finality: { safeDepth: 1, finalizedDepth: 3 },
  };

  it("is optional and takes defaults", () => {
    expect(chainConfigSchema.parse(base).substrate).toBeUndefined();
    expect(chainConfigSchema.parse({ ...base, substrate }).substrate).toMatchObject({
      ...substrate,
      ss58Prefix: 42,
      rpc: { timeoutMs: 10_000 },
    });
  });

  it.each([
    ["an http URL", { rpcUrl: "http://127.0.0.1:9944" }, "substrate.rpcUrl"],
    ["an unknown key", { extra: 1 }, "substrate"],
    [
      "a finalized depth below the safe depth",
      { finality: { safeDepth: 2, finalizedDepth: 1 } },
      "substrate.finality.finalizedDepth",
    ],
  ])("refuses %s", (_, change, path) => {
    const result = chainConfigSchema.safeParse({ ...base, substrate: { ...substrate, ...change } });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((issue) => issue.path.join("."))).toContain(path);
  });
});
