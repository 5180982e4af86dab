import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, type ManagedProcess, spawnManaged, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The entry point as a Deployment runs it, with INGEST_SOURCES picking the sources. No broker or
// node is needed to see which sources started: /readyz lists exactly the checks of what runs (all
// failing here, as Kafka, NATS and the RPC endpoints point at closed ports).
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const dir = tempDir("chain-ingestor-main");
const running: ManagedProcess[] = [];
let chainsFile: string;
let closedPort: number;

beforeAll(async () => {
  closedPort = await freePort();
  const rpcUrl = `http://127.0.0.1:${closedPort}`;
  const chain = {
    blockTimeMs: 1_000,
    finality: { safeDepth: 0, finalizedDepth: 0 },
    rpcUrl,
    rpc: { timeoutMs: 500, retryCount: 0, retryDelayMs: 0 },
  };
  chainsFile = join(dir.path, "chains.json");
  writeFileSync(
    chainsFile,
    JSON.stringify({
      environment: "test",
      chains: [
        // The coin/USD feed on the origin chain, as the local stack has it: the price source follows it.
        {
          ...chain,
          name: "origin",
          chainId: 31337,
          roles: ["origin"],
          contracts: {
            fullSettler: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
            priceFeed: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
          },
        },
        // No settler deployed yet: neither source follows it, so its RPC is no readiness concern.
        { ...chain, name: "destination", chainId: 31338, roles: ["destination"] },
      ],
      // The native network's Substrate side: the native source follows it.
      substrate: {
        name: "bittensor",
        chainId: 945,
        rpcUrl: `ws://127.0.0.1:${closedPort}`,
        blockTimeMs: 12_000,
        finality: { safeDepth: 1, finalizedDepth: 3 },
        rpc: { timeoutMs: 500, retryCount: 0, retryDelayMs: 0 },
      },
    }),
  );
});

afterAll(async () => {
  await Promise.all(running.map((ingestor) => ingestor.stop(5_000)));
  dir.remove();
});

async function startIngestor(
  name: string,
  env: Record<string, string>,
): Promise<{ process: ManagedProcess; opsPort: number; logFile: string }> {
  const [grpcPort, opsPort] = [await freePort(), await freePort()];
  const logFile = join(dir.path, `${name}.log`);
  const ingestor = spawnManaged({
    name,
    command: process.execPath,
    args: [
      "--conditions=@platform/source",
      "--import",
      "tsx",
      join(repoRoot, "services", "chain-ingestor", "src", "main.ts"),
    ],
    cwd: repoRoot,
    logFile,
    env: {
      PATH: process.env.PATH,
      KAFKA_BROKERS: `127.0.0.1:${closedPort}`,
      CHAINS_FILE: chainsFile,
      GRPC_PORT: String(grpcPort),
      OPS_PORT: String(opsPort),
      SHUTDOWN_TIMEOUT_MS: "10000",
      ...env,
    },
  });
  running.push(ingestor);
  return { process: ingestor, opsPort, logFile };
}

async function readinessChecks(opsPort: number): Promise<string[]> {
  const body = await waitFor(
    async () => {
      const response = await fetch(`http://127.0.0.1:${opsPort}/readyz`).catch(() => undefined);
      return response ? ((await response.json()) as { status: string; checks: Record<string, unknown> }) : undefined;
    },
    { what: "the ingestor's /readyz", timeoutMs: 60_000, intervalMs: 200 },
  );
  expect(body.status).toBe("not_ready");
  return Object.keys(body.checks).sort();
}

describe("chain-ingestor INGEST_SOURCES", () => {
  it("with native only, follows the substrate network and neither the intents source nor NATS", async () => {
    const { process: ingestor, opsPort, logFile } = await startIngestor("native-only", { INGEST_SOURCES: "native" });
    expect(await readinessChecks(opsPort)).toEqual(["kafka", "native-following", "native-topics", "rpc:bittensor"]);
    // It tries the substrate network's node (closed here) and nothing else.
    const log = await waitFor(
      async () => {
        const text = readFileSync(logFile, "utf8");
        return text.includes("the native network's node does not answer") ? text : undefined;
      },
      { what: "the native source trying its node", timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(log).toContain(`ws://127.0.0.1:${closedPort}`);
    expect(log).not.toContain("following FullSettler events");
    expect(log).not.toContain("price feed");
    await ingestor.stop(15_000);
    expect(await ingestor.exited).toBe(0);
  }, 120_000);

  it("with intents only, starts the intents source and not the native one", async () => {
    const { opsPort, logFile } = await startIngestor("intents-only", {
      INGEST_SOURCES: "intents",
      NATS_URL: `nats://127.0.0.1:${closedPort}`,
    });
    expect(await readinessChecks(opsPort)).toEqual(["following", "kafka", "nats", "rpc:origin", "topics"]);
    const log = readFileSync(logFile, "utf8");
    expect(log).toContain("following FullSettler events");
    expect(log).not.toContain("native network");
    expect(log).not.toContain("price feed");
  }, 120_000);

  it("with price only, follows the chain whose contracts name the feed, without NATS or the other sources", async () => {
    const { process: ingestor, opsPort, logFile } = await startIngestor("price-only", { INGEST_SOURCES: "price" });
    expect(await readinessChecks(opsPort)).toEqual(["kafka", "price-following", "price-topics", "rpc:origin"]);
    const log = readFileSync(logFile, "utf8");
    expect(log).toContain("following the coin/USD price feed");
    expect(log).not.toContain("following FullSettler events");
    expect(log).not.toContain("native network");
    await ingestor.stop(15_000);
    expect(await ingestor.exited).toBe(0);
  }, 120_000);

  it("exits 78 naming INGEST_SOURCES when it lists an unknown source, the retired EVM network source among them", async () => {
    for (const sources of ["intents,blocks", "network"]) {
      const { process: ingestor, logFile } = await startIngestor(`unknown-source-${sources}`, {
        INGEST_SOURCES: sources,
        NATS_URL: "nats://127.0.0.1:4222",
      });
      expect(await ingestor.exited).toBe(78);
      expect(readFileSync(logFile, "utf8")).toContain(
        "chain-ingestor: configuration error: INGEST_SOURCES: must list sources among intents, native, price",
      );
    }
  }, 120_000);
});
