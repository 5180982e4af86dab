import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DeploymentDataError, deployments, findRoute, parseDeployment, resolveRoutes } from "./deployments.js";
import { DeploymentSourceError, loadDeployment } from "./loadDeployment.js";

const withAddresses = () => {
  const data = structuredClone(deployments.local) as any;
  data.chains[0].fullSettler = "0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0";
  data.chains[0].tokens[0].address = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
  data.chains[1].tokens[0].address = "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512";
  return data;
};

describe("the known environments", () => {
  it("pass the client's own checks, and list local's routes by symbol", () => {
    for (const deployment of Object.values(deployments)) expect(parseDeployment(deployment)).toEqual(deployment);
    expect(resolveRoutes(deployments.local).map(({ route }) => `${route.inputToken}:${route.originChainId}`)).toContain(
      "USDC:31337",
    );
  });
});

describe("parseDeployment", () => {
  it("checksums addresses and finds routes by symbol or by address in any case", () => {
    const deployment = parseDeployment(withAddresses());
    expect(deployment.chains[0]!.fullSettler).toBe("0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0");
    const bySymbol = findRoute(deployment, {
      originChainId: 31337,
      destinationChainId: 31338,
      inputToken: "USDC",
      outputToken: "USDC",
    });
    const byAddress = findRoute(deployment, {
      originChainId: 31337,
      destinationChainId: 31338,
      inputToken: "0x5FBDB2315678AFECB367F032D93F642F64180AA3",
      outputToken: "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512",
    });
    expect(byAddress).toEqual(bySymbol);
    expect(bySymbol?.inputToken).toMatchObject({ symbol: "USDC", decimals: 6 });
    expect(
      findRoute(deployment, { originChainId: 1, destinationChainId: 964, inputToken: "USDC", outputToken: "USDC" }),
    ).toBe(undefined);
  });

  it("names every issue: schema first, then references between the parts", () => {
    expect(() => parseDeployment({ schemaVersion: 1 })).toThrow(/environment: .*; chains: /);
    const repeated = withAddresses();
    repeated.chains.push(structuredClone(repeated.chains[0]));
    repeated.chains[0].tokens[1].symbol = "USDC";
    repeated.routes.push(structuredClone(repeated.routes[1]));
    repeated.routes[0].destinationChainId = 31337;
    repeated.routes[0].limits.minInputAmount = "100000000000000";
    let issues: readonly string[] = [];
    try {
      parseDeployment(repeated);
    } catch (error) {
      expect(error).toBeInstanceOf(DeploymentDataError);
      issues = (error as DeploymentDataError).issues;
    }
    expect(issues).toEqual(
      expect.arrayContaining([
        "chains: chain id 31337 is listed twice",
        "chain 31337: token USDC is listed twice",
        "routes.0: origin and destination are one chain",
        "routes.0: limits.minInputAmount is above limits.maxInputAmount",
        "routes: WETH@31337 → WETH@31338 is listed twice",
      ]),
    );
  });
});

describe("loadDeployment", () => {
  it("fetches and checks another environment's file", async () => {
    const served = withAddresses();
    served.environment = "staging";
    const fetch = async (url: string | URL) => {
      expect(String(url)).toBe("https://deployments.example/staging/deployment.v1.json");
      return new Response(JSON.stringify(served), { headers: { "content-type": "application/json" } });
    };
    const loaded = await loadDeployment("https://deployments.example/staging/deployment.v1.json", { fetch });
    expect(loaded.environment).toBe("staging");
    await expect(
      loadDeployment("https://deployments.example/x.json", { fetch: async () => new Response("{}", { status: 404 }) }),
    ).rejects.toThrow(/HTTP 404/);
    await expect(
      loadDeployment("https://deployments.example/x.json", { fetch: async () => new Response('{"schemaVersion":2}') }),
    ).rejects.toThrow(DeploymentDataError);
  });

  it("fetches over https: only, plain http: only from loopback, and never file:", async () => {
    const served = JSON.stringify(withAddresses());
    const fetched: string[] = [];
    const fetch = async (url: string | URL) => {
      fetched.push(String(url));
      return new Response(served);
    };
    for (const url of ["http://deployments.example/d.json", "file:///etc/deployment.v1.json", "ftp://x.example/d"])
      await expect(loadDeployment(url, { fetch })).rejects.toMatchObject({ code: "INSECURE_DEPLOYMENT_URL" });
    expect(fetched).toEqual([]);
    for (const url of ["http://127.0.0.1:8080/d.json", "http://localhost/d.json", "http://[::1]:9/d.json"])
      expect((await loadDeployment(url, { fetch })).environment).toBe("local");
  });

  it("names the URL without its user name or password in every refusal, a failed fetch included", async () => {
    const url = "https://deploy:s3cr3t@deployments.example/staging/deployment.v1.json";
    const refusals = [
      () => loadDeployment(url, { fetch: async () => new Response("{}", { status: 404 }) }),
      () => loadDeployment(url, { fetch: async () => new Response("not json") }),
      () => loadDeployment(url, { fetch: async () => new Response("{}"), sha256: "00".repeat(32) }),
      () =>
        loadDeployment(url, {
          fetch: async () => {
            throw new TypeError("fetch failed");
          },
        }),
    ];
    for (const refusal of refusals) {
      const error = await refusal().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(DeploymentSourceError);
      expect((error as DeploymentSourceError).message).toContain("https://deployments.example/staging/");
      expect((error as DeploymentSourceError).message).not.toContain("s3cr3t");
    }
  });

  it("accepts only the pinned bytes when given their SHA-256", async () => {
    const served = JSON.stringify(withAddresses());
    const digest = createHash("sha256").update(served).digest("hex");
    const fetch = async () => new Response(served);
    const url = "https://deployments.example/local.json";
    expect((await loadDeployment(url, { fetch, sha256: digest })).environment).toBe("local");
    expect((await loadDeployment(url, { fetch, sha256: `sha256:${digest.toUpperCase()}` })).environment).toBe("local");
    const tampered = async () => new Response(served.replace("0x9fe4", "0x9fe5"));
    const refusal = loadDeployment(url, { fetch: tampered, sha256: digest });
    await expect(refusal).rejects.toThrow(DeploymentSourceError);
    await expect(refusal).rejects.toMatchObject({ code: "DEPLOYMENT_DIGEST_MISMATCH" });
  });
});
