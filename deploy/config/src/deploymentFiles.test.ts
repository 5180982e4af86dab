import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { DeploymentDataError, deployments, parseDeployment } from "@chain-intents/client";
import { chainConfigSchema } from "@platform/chain";
import { devnetTokens } from "@platform/devnet";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { deploymentDataOf } from "./deploymentData.js";
import {
  configDir,
  deploymentFile,
  environmentDeployment,
  environments,
  generatedFiles,
  schemaFile,
  tokenCatalogFile,
} from "./deploymentFiles.js";
import { loadTokenCatalog } from "./tokenCatalog.js";

const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, any>;
// Compiled once: ajv's compilation, not the validation, is what costs.
const compiled = new Ajv2020({ allErrors: true, strict: true }).compile(readJson(schemaFile));
const validator = () => compiled;

describe("the published deployment data", () => {
  it("is generated for every environment of deploy/config (local at least)", () => {
    expect(environments()).toContain("local");
  });

  it("validates, every environment's file, against the committed JSON Schema (ajv, draft 2020-12)", () => {
    const validate = validator();
    for (const environment of environments()) {
      const valid = validate(readJson(deploymentFile(environment)));
      expect(validate.errors ?? [], environment).toEqual([]);
      expect(valid).toBe(true);
    }
  });

  it("is fresh: the schema, each environment's file and the client's constants match a new generation byte for byte", async () => {
    const stale: string[] = [];
    for (const [path, text] of await generatedFiles())
      if (readFileSync(path, "utf8") !== text) stale.push(relative(configDir, path));
    expect(stale, "stale; run `pnpm --filter @platform/deployment-data generate`").toEqual([]);
  });

  it("is what the client ships for the known environments", () => {
    for (const [environment, deployment] of Object.entries(deployments))
      expect(deployment).toEqual(readJson(deploymentFile(environment)));
  });

  it("lists the routes, limits and fees the services' chains file configures, and nothing else", () => {
    for (const environment of environments()) {
      const chains = chainConfigSchema.parse(readJson(`${configDir}/${environment}/chains.json`));
      const published = readJson(deploymentFile(environment));
      expect(published.routes).toEqual(
        chains.routes.map((route) => ({
          originChainId: route.originChainId,
          destinationChainId: route.destinationChainId,
          inputToken: route.inputToken,
          outputToken: route.outputToken,
          limits: { minInputAmount: route.limits.min, maxInputAmount: route.limits.max },
          fee: { bps: route.fee.bps, fixedAmount: route.fee.fixed },
          fillTimeEstimateSeconds: route.fillTimeEstimateSeconds,
          quoteTtlSeconds: route.quoteTtlSeconds,
        })),
      );
      const intentChains = chains.chains.filter((chain) => !chain.roles.includes("native"));
      expect(published.chains.map((chain: { chainId: number }) => chain.chainId)).toEqual(
        intentChains.map((chain) => chain.chainId),
      );
    }
  });

  it("gives the local tokens the decimals and names the devnet deploys them with", async () => {
    const catalog = await loadTokenCatalog(tokenCatalogFile("local"));
    const deployed = Object.fromEntries(
      devnetTokens.map((token) => [token.symbol, { name: token.name, decimals: token.decimals }]),
    );
    expect(catalog).toEqual({ origin: deployed, destination: deployed });
  });
});

describe("the schema and the client's parser refuse the same broken files", () => {
  const mutations: Array<[string, (data: Record<string, any>) => void]> = [
    ["another schema version", (data) => (data.schemaVersion = 2)],
    ["an unknown top-level member", (data) => (data.tokens = [])],
    ["no chains", (data) => (data.chains = [])],
    ["a bad settler address", (data) => (data.chains[0].fullSettler = "0x1234")],
    ["decimals as a string", (data) => (data.chains[0].tokens[0].decimals = "6")],
    ["a limit as a JSON number", (data) => (data.routes[0].limits.minInputAmount = 1_000_000)],
    ["a fee of 100 %", (data) => (data.routes[0].fee.bps = 10_000)],
    ["a misspelt route member", (data) => (data.routes[0].quoteTTLSeconds = 60)],
  ];

  it.each(mutations)("%s", (_what, mutate) => {
    const data = readJson(deploymentFile("local"));
    mutate(data);
    expect(validator()(data)).toBe(false);
    expect(() => parseDeployment(data)).toThrow(DeploymentDataError);
  });

  it("the parser also refuses a route whose chain or token the data does not list (which JSON Schema cannot say)", () => {
    const data = readJson(deploymentFile("local"));
    data.routes[0].outputToken = "DAI";
    data.routes[1].originChainId = 1;
    expect(validator()(data)).toBe(true);
    expect(() => parseDeployment(data)).toThrow(/routes\.0: chain 31338 lists no token DAI; routes\.1: no chain 1/);
  });
});

describe("deploymentDataOf a deployed chains file", () => {
  const settler = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";
  const usdc = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

  it("carries the settler and token addresses the deployment wrote, and the native coin a route names", async () => {
    const template = readJson(`${configDir}/local/chains.json`);
    for (const chain of template.chains) chain.contracts = { fullSettler: settler, tokens: { USDC: usdc } };
    template.routes = [
      { ...template.routes[0], inputToken: usdc },
      { ...template.routes[1], inputToken: "ETH", outputToken: "0x0000000000000000000000000000000000000000" },
    ];
    const data = deploymentDataOf(chainConfigSchema.parse(template), await loadTokenCatalog(tokenCatalogFile("local")));
    expect(data.chains[0]).toMatchObject({
      fullSettler: settler,
      tokens: [
        { symbol: "USDC", decimals: 6, address: usdc },
        { symbol: "WETH", decimals: 18, address: null },
        { symbol: "ETH", decimals: 18, address: "0x0000000000000000000000000000000000000000" },
      ],
    });
    expect(data.routes.map((route) => [route.inputToken, route.outputToken])).toEqual([
      ["USDC", "USDC"],
      ["ETH", "ETH"],
    ]);
    expect(validator()(JSON.parse(JSON.stringify(data)))).toBe(true);
  });

  it("refuses a route token the catalog gives no decimals for", async () => {
    const template = readJson(`${configDir}/local/chains.json`);
    for (const chain of template.chains) chain.contracts = { tokens: { DAI: usdc } };
    template.routes = [{ ...template.routes[0], inputToken: "DAI", outputToken: "DAI" }];
    await expect(
      (async () =>
        deploymentDataOf(chainConfigSchema.parse(template), await loadTokenCatalog(tokenCatalogFile("local"))))(),
    ).rejects.toThrow(/a route names DAI on chain origin: add its name and decimals to the token catalog/);
  });

  it("is what environmentDeployment reads from the committed files", async () => {
    expect(await environmentDeployment("local")).toEqual(readJson(deploymentFile("local")));
  });
});
