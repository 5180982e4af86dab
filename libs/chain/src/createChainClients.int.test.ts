import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { type RunningAnvil, startAnvil, tempDir } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConfiguredChain, configuredChainSchema } from "./chainConfig.js";
import { createChainClients } from "./createChainClients.js";
import { rpcReadiness } from "./rpcReadiness.js";

const dir = tempDir("chain-clients");
let anvil: RunningAnvil;

function configured(rpcUrl: string, chainId: number): ConfiguredChain {
  return configuredChainSchema.parse({
    name: "origin",
    chainId,
    rpcUrl,
    roles: ["origin"],
    blockTimeMs: 1000,
    finality: { safeDepth: 0, finalizedDepth: 0 },
    rpc: { timeoutMs: 2_000, retryCount: 0, retryDelayMs: 50 },
  });
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 31337, logFile: join(dir.path, "anvil.log") });
});

afterAll(async () => {
  await anvil.stop();
  dir.remove();
});

describe("createChainClients against anvil", () => {
  it("reads the configured chain", async () => {
    const { chain, publicClient } = createChainClients(configured(anvil.rpcUrl, 31337));
    expect(chain.id).toBe(31337);
    expect(chain.blockTime).toBe(1000);
    expect(await publicClient.getChainId()).toBe(31337);
    expect(await publicClient.getBlockNumber()).toBeGreaterThanOrEqual(0n);
  });

  it("reports ready while anvil answers, not ready for the wrong chain, and not ready once anvil stops", async () => {
    const { publicClient } = createChainClients(configured(anvil.rpcUrl, 31337));
    expect(await rpcReadiness(publicClient, 2_000)).toBe(true);

    const wrongChain = createChainClients(configured(anvil.rpcUrl, 1)).publicClient;
    expect(await rpcReadiness(wrongChain, 2_000)).toBe(false);

    await anvil.stop();
    const started = Date.now();
    expect(await rpcReadiness(publicClient, 2_000)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_500);
  });
});

describe("rpcReadiness", () => {
  let silent: Server;
  let silentUrl: string;

  beforeAll(async () => {
    // Accepts connections and never answers: the hung node a deadline exists for.
    silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const address = silent.address();
    if (address === null || typeof address === "string") throw new Error("no TCP address");
    silentUrl = `http://127.0.0.1:${address.port}`;
  });

  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it("gives up on a node that never answers at its own deadline, not the transport's", async () => {
    const client = createChainClients({
      ...configured(silentUrl, 31337),
      rpc: { timeoutMs: 30_000, retryCount: 3, retryDelayMs: 50 },
    }).publicClient;
    const started = Date.now();
    expect(await rpcReadiness(client, 300)).toBe(false);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(1_500);
  });
});
