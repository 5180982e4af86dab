import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  buildOpenCalls,
  createClient,
  type Deployment,
  deployments,
  findRoute,
  isProblem,
  parseDeployment,
  resolveRoutes,
} from "@chain-intents/client";
import { loadChainConfig } from "@platform/chain";
import { DEPLOYMENT_FILE_NAME, deploymentDataOf, loadTokenCatalog, tokenCatalogFile } from "@platform/deployment-data";
import { erc20Abi, type Hash, parseEventLogs } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fullSettlerAbi, fundUser } from "./support/intentsActors.js";
import { type IntentsStack, intentBecomes, newApiKey, startIntentsStack } from "./support/intentsStack.js";

// Issue 31, point 5, against a whole local stack without the simulator: the deployment data the
// launcher publishes is what the services run with, and the calls the client encodes from a quote
// and that data, sent from a devnet wallet, open an order the API mirrors as OPEN.
let s: IntentsStack;
let deployment: Deployment;
let deploymentFile: string;
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
  s = await startIntentsStack("e2e-client-open-calls");
  deploymentFile = join(s.stack.descriptor.stateDir, DEPLOYMENT_FILE_NAME);
  deployment = parseDeployment(JSON.parse(readFileSync(deploymentFile, "utf8")));
  const key = await newApiKey(s.stack, "e2e-client-open-calls-client");
  client = createClient({ baseUrl: s.stack.descriptor.gatewayUrl, apiKey: { id: key.id, secret: key.secret } });
}, 240_000);

afterAll(async () => {
  await s?.stop();
}, 120_000);

const sideOf = (chainId: number) => (chainId === s.origin.chainId ? s.origin : s.destination);

describe("the deployment data the launcher publishes", () => {
  it("is made from the chains file the services were started with, and is the client's local data with addresses", async () => {
    const chainsFile = join(s.stack.descriptor.stateDir, "chains.json");
    const fromServicesConfig = deploymentDataOf(
      await loadChainConfig(chainsFile),
      await loadTokenCatalog(tokenCatalogFile("local")),
    );
    expect(deployment).toEqual(fromServicesConfig);
    const withoutAddresses = {
      ...deployment,
      chains: deployment.chains.map((chain) => ({
        ...chain,
        fullSettler: null,
        tokens: chain.tokens.map((token) => ({ ...token, address: null })),
      })),
    };
    expect(withoutAddresses).toEqual(deployments.local);
    expect(deployment.chains.find((chain) => chain.chainId === s.origin.chainId)?.fullSettler).toBe(s.origin.settler);
  });

  it("names each token with the symbol and decimals its contract reports", async () => {
    for (const chain of deployment.chains)
      for (const token of chain.tokens) {
        const { publicClient } = sideOf(chain.chainId);
        const address = token.address as `0x${string}`;
        const [symbol, decimals] = await Promise.all([
          publicClient.readContract({ address, abi: erc20Abi, functionName: "symbol" }),
          publicClient.readContract({ address, abi: erc20Abi, functionName: "decimals" }),
        ]);
        expect({ chainId: chain.chainId, symbol, decimals }).toEqual({
          chainId: chain.chainId,
          symbol: token.symbol,
          decimals: token.decimals,
        });
      }
  });

  it("lists exactly the routes the API quotes, with its limits and settler, and UNSUPPORTED_ROUTE points to it", async () => {
    const user = privateKeyToAccount(generatePrivateKey());
    const routes = resolveRoutes(deployment);
    expect(routes.length).toBeGreaterThan(0);
    for (const { route, origin, inputToken, outputToken } of routes) {
      const quote = await client.post("/intents/v1/quotes", {
        body: {
          originChainId: route.originChainId,
          destinationChainId: route.destinationChainId,
          inputToken: inputToken.address!,
          outputToken: outputToken.address!,
          amount: route.limits.minInputAmount,
          userAddress: user.address,
        },
      });
      expect(quote.settlement?.fullSettler).toBe(origin.fullSettler);
      expect(quote.limits).toEqual(route.limits);
    }

    const refused = await client
      .post("/intents/v1/quotes", {
        body: {
          originChainId: 31337,
          destinationChainId: 31338,
          inputToken: routes[0]!.inputToken.address!,
          outputToken: routes[0]!.origin.fullSettler!,
          amount: "1000000",
        },
      })
      .catch((error: unknown) => error);
    if (!isProblem(refused, "UNSUPPORTED_ROUTE")) throw refused;
    // The stack's deployment data is a file: its path on the server is never published (issue 42).
    expect(refused.problem.deploymentData).toEqual({ environment: "local" });
    expect(refused.detail).toContain("listed in the deployment data of environment local");
    expect(JSON.stringify(refused.problem)).not.toContain(pathToFileURL(deploymentFile).href);
    const listed = routes.map(({ route, inputToken, outputToken }) => ({
      originChainId: route.originChainId,
      destinationChainId: route.destinationChainId,
      inputToken: inputToken.address,
      outputToken: outputToken.address,
    }));
    expect(refused.problem.supportedRoutes).toEqual(listed);
  }, 60_000);
});

describe("calls built by the client from a quote and the deployment data", () => {
  it("approve then open, sent from a devnet wallet, open an order the API mirrors as OPEN", async () => {
    const user = privateKeyToAccount(generatePrivateKey());
    await fundUser(s, user, { usdc: 1_000_000_000n, approve: false });
    const route = findRoute(deployment, {
      originChainId: s.origin.chainId,
      destinationChainId: s.destination.chainId,
      inputToken: "USDC",
      outputToken: "USDC",
    })!;
    const quote = await client.post("/intents/v1/quotes", {
      body: {
        originChainId: route.route.originChainId,
        destinationChainId: route.route.destinationChainId,
        inputToken: route.inputToken.address!,
        outputToken: route.outputToken.address!,
        amount: "100000000",
        userAddress: user.address,
      },
    });

    const origin = sideOf(route.origin.chainId);
    const calls = await buildOpenCalls({
      quote,
      deployment,
      owner: user.address,
      readAllowance: ({ token, owner, spender }) =>
        origin.publicClient.readContract({
          address: token,
          abi: erc20Abi,
          functionName: "allowance",
          args: [owner, spender],
        }),
    });
    expect(calls.map((call) => [call.chainId, call.to])).toEqual([
      [s.origin.chainId, s.origin.usdc],
      [s.origin.chainId, s.origin.settler],
    ]);

    const hashes: Hash[] = [];
    for (const call of calls) {
      const hash = await origin.wallet(user).sendTransaction({ to: call.to, data: call.data, value: call.value });
      const receipt = await origin.publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
      expect(receipt.status).toBe("success");
      hashes.push(hash);
    }
    const openReceipt = await origin.publicClient.getTransactionReceipt({ hash: hashes[1]! });
    const [opened] = parseEventLogs({ abi: fullSettlerAbi, eventName: "Open", logs: openReceipt.logs });
    const record = await intentBecomes(s.api, opened!.args.orderId, (found) => found?.status === "OPEN", "OPEN");
    expect(record).toMatchObject({
      status: "OPEN",
      originTxHash: hashes[1],
      input: { amount: "100000000" },
      fillDeadline: quote.fillDeadline,
    });

    // The approval was exact and open spent it: the next order needs one again, and only that.
    const again = await buildOpenCalls({
      quote,
      deployment,
      owner: user.address,
      readAllowance: async () =>
        origin.publicClient.readContract({
          address: s.origin.usdc,
          abi: erc20Abi,
          functionName: "allowance",
          args: [user.address, s.origin.settler],
        }),
    });
    expect(again).toHaveLength(2);
  }, 90_000);
});
