import { type ChainConfigInput, chainConfigSchema } from "@platform/chain";
import { describe, expect, it } from "vitest";
import { buildRouteTable } from "./routeTable.js";
import { unsupportedRoute } from "./unsupportedRoute.js";

const USDC_A = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const USDC_B = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";
const config = chainConfigSchema.parse({
  environment: "staging",
  chains: [1, 2].map((chainId) => ({
    name: `c${chainId}`,
    chainId,
    rpcUrl: "http://127.0.0.1:8545",
    roles: [chainId === 1 ? "origin" : "destination"] as ("origin" | "destination")[],
    blockTimeMs: 1000,
    finality: { safeDepth: 0, finalizedDepth: 0 },
    contracts: { tokens: { USDC: chainId === 1 ? USDC_A : USDC_B } },
  })),
  routes: [
    {
      originChainId: 1,
      destinationChainId: 2,
      inputToken: "USDC",
      outputToken: "USDC",
      fee: { bps: 5, fixed: "100" },
      limits: { min: "1000", max: "1000000" },
      fillTimeEstimateSeconds: 10,
      quoteTtlSeconds: 60,
    },
  ],
} satisfies ChainConfigInput);

describe("unsupportedRoute", () => {
  it("links the published deployment data, beside the configured routes and the caller's own members", () => {
    const url = "https://deployments.example/staging/deployment.v1.json";
    const error = unsupportedRoute(buildRouteTable(config, url), "no route from X", { parameter: "order.inputToken" });
    expect(error).toMatchObject({ code: "UNSUPPORTED_ROUTE", httpStatus: 400 });
    expect(error.detail).toBe(
      `no route from X; the routes this service quotes are listed in its deployment data at ${url}`,
    );
    expect(error.extras).toEqual({
      parameter: "order.inputToken",
      supportedRoutes: [{ originChainId: 1, destinationChainId: 2, inputToken: USDC_A, outputToken: USDC_B }],
      deploymentData: { environment: "staging", href: url },
    });
  });

  it("names the environment when no URL is configured", () => {
    const error = unsupportedRoute(buildRouteTable(config), "no route from X");
    expect(error.detail).toMatch(/listed in the deployment data of environment staging$/);
    expect(error.extras.deploymentData).toEqual({ environment: "staging" });
  });

  it("never publishes a file: URL (a path on the server), naming the environment instead", () => {
    const error = unsupportedRoute(
      buildRouteTable(config, "file:///srv/platform/.local/deployment.v1.json"),
      "no route from X",
    );
    expect(error.detail).toMatch(/listed in the deployment data of environment staging$/);
    expect(error.extras.deploymentData).toEqual({ environment: "staging" });
    expect(JSON.stringify(error.extras)).not.toContain("file:");
  });

  it("never publishes a URL that carries a user name or password, naming the environment instead", () => {
    for (const url of [
      "https://deploy:s3cr3t@deployments.example/staging/deployment.v1.json",
      "http://token@127.0.0.1:8080/deployment.v1.json",
    ]) {
      const error = unsupportedRoute(buildRouteTable(config, url), "no route from X");
      expect(error.detail).toMatch(/listed in the deployment data of environment staging$/);
      expect(error.extras.deploymentData).toEqual({ environment: "staging" });
      expect(JSON.stringify(error)).not.toMatch(/s3cr3t|token@/);
    }
  });
});
