import { type ChainConfigInput, chainConfigSchema } from "@platform/chain";
import { zeroAddress } from "viem";
import { describe, expect, it } from "vitest";
import { buildRouteTable, findRoute } from "./routeTable.js";

const USDC_A = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const USDC_B = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";
const chain = (name: string, chainId: number, tokens?: Record<string, string>) => ({
  name,
  chainId,
  rpcUrl: "http://127.0.0.1:8545",
  roles: [name === "a" ? "origin" : "destination"] as ("origin" | "destination")[],
  blockTimeMs: 1000,
  finality: { safeDepth: 0, finalizedDepth: 0 },
  ...(tokens ? { contracts: { tokens } } : {}),
});
const route = (overrides: Record<string, unknown> = {}) => ({
  originChainId: 1,
  destinationChainId: 2,
  inputToken: "USDC",
  outputToken: "USDC",
  fee: { bps: 5, fixed: "100" },
  limits: { min: "1000", max: "1000000" },
  fillTimeEstimateSeconds: 10,
  quoteTtlSeconds: 60,
  ...overrides,
});

describe("buildRouteTable", () => {
  it("resolves symbols to the chain's token addresses and the native symbol to the zero address", () => {
    const config = chainConfigSchema.parse({
      environment: "test",
      chains: [chain("a", 1, { USDC: USDC_A }), chain("b", 2, { USDC: USDC_B })],
      routes: [route(), route({ inputToken: "ETH", outputToken: zeroAddress })],
    } satisfies ChainConfigInput);
    const table = buildRouteTable(config);
    expect(table.unresolved).toEqual([]);
    expect(table.routes[0]).toEqual({
      originChainId: 1,
      destinationChainId: 2,
      inputToken: USDC_A,
      outputToken: USDC_B,
      fee: { bps: 5, fixed: 100n },
      limits: { min: 1000n, max: 1_000_000n },
      fillTimeEstimateSeconds: 10,
      quoteTtlSeconds: 60,
    });
    expect(table.routes[1]).toMatchObject({ inputToken: zeroAddress, outputToken: zeroAddress });
    expect(findRoute(table, { originChainId: 1, destinationChainId: 2, inputToken: USDC_A, outputToken: USDC_B })).toBe(
      table.routes[0],
    );
    expect(
      findRoute(table, { originChainId: 2, destinationChainId: 1, inputToken: USDC_B, outputToken: USDC_A }),
    ).toBeUndefined();
  });

  it("leaves out, and reports, a route whose symbol has no address yet (a template before deployment)", () => {
    const config = chainConfigSchema.parse({
      environment: "test",
      chains: [chain("a", 1), chain("b", 2)],
      routes: [route()],
    } satisfies ChainConfigInput);
    expect(buildRouteTable(config)).toEqual({
      routes: [],
      unresolved: [{ index: 0, reason: "token USDC has no address on chain a; token USDC has no address on chain b" }],
      deploymentData: { environment: "test" },
    });
  });
});
