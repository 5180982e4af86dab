import { describe, expect, it } from "vitest";
import { chainConfigSchema, configuredChainSchema, type ConfiguredChainInput } from "./chainConfig.js";

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
          tokens: { USDC: "0xca11bde05977b3631167028862be2a173976ca11", "USDC.e": "0xca11bde05977b3631167028862be2a173976ca11" },
        },
      }),
    );
    expect(parsed.contracts.walletFactory).toBe("0xcA11bde05977b3631167028862bE2a173976CA11");
    expect(parsed.contracts.tokens).toEqual({
      USDC: "0xcA11bde05977b3631167028862bE2a173976CA11",
      "USDC.e": "0xcA11bde05977b3631167028862bE2a173976CA11",
    });
  });

  it.each([
    ["a non-http RPC URL", { rpcUrl: "ws://127.0.0.1:8545" }, "rpcUrl"],
    ["an unknown role", { roles: ["bridge"] }, "roles.0"],
    ["no role", { roles: [] }, "roles"],
    ["a repeated role", { roles: ["origin", "origin"] }, "roles"],
    ["a bad address", { contracts: { fullSettler: "0x1234" } }, "contracts.fullSettler"],
    ["a token with a bad address", { contracts: { tokens: { USDC: "0x1234" } } }, "contracts.tokens.USDC"],
    ["a token symbol with spaces", { contracts: { tokens: { "US DC": "0xca11bde05977b3631167028862be2a173976ca11" } } }, "contracts.tokens.US DC"],
    ["a misspelt contract key", { contracts: { multicall: "0xca11bde05977b3631167028862be2a173976ca11" } }, "contracts"],
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

  it("rejects an empty chain list and unknown top-level keys", () => {
    expect(issuesOf({ environment: "local", chains: [] })).toHaveLength(1);
    expect(issuesOf({ environment: "local", chains: [chain()], tokens: [] })).toHaveLength(1);
  });
});
