import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadChainConfig } from "@platform/chain";
import {
  addressToBytes32,
  type DevnetDeployment,
  deployDevnet,
  encodeOrderData,
  fullSettlerAbi,
  OrderStatus,
  orderDataTypeHash,
} from "@platform/devnet";
import { priceFeedAbi } from "@platform/subtensor";
import {
  freePort,
  type ManagedProcess,
  type RunningAnvil,
  spawnManaged,
  startAnvil,
  tempDir,
  waitFor,
} from "@platform/testing";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  parseEther,
  parseEventLogs,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The simulator as the launcher runs it: its own process, keys from a 0600 file, ready on /readyz,
// then filling and settling an order a user opens on the devnet, and moving the origin chain's price feed.
const dir = tempDir("simulator-main");
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const anvils: RunningAnvil[] = [];
let deployment: DevnetDeployment;
let simulator: ManagedProcess | undefined;
let opsPort: number;

beforeAll(async () => {
  anvils.push(
    ...(await Promise.all(
      [31337, 31338].map((chainId) => startAnvil({ chainId, logFile: join(dir.path, `anvil-${chainId}.log`) })),
    )),
  );
  deployment = await deployDevnet({
    chains: [
      { name: "origin", chainId: 31337, rpcUrl: anvils[0]!.rpcUrl, roles: ["origin"] },
      { name: "destination", chainId: 31338, rpcUrl: anvils[1]!.rpcUrl, roles: ["destination"] },
    ],
  });
  const local = await loadChainConfig(join(repoRoot, "deploy", "config", "local", "chains.json"));
  const chainsFile = join(dir.path, "chains.json");
  writeFileSync(
    chainsFile,
    JSON.stringify({
      ...local,
      chains: local.chains
        .filter((chain) => chain.name in deployment.chains)
        .map((chain) => ({
          ...chain,
          rpcUrl: deployment.chains[chain.name]!.rpcUrl,
          contracts: { ...chain.contracts, ...deployment.chains[chain.name]!.contracts },
        })),
    }),
  );
  const keysFile = join(dir.path, "keys.json");
  writeFileSync(
    keysFile,
    JSON.stringify({
      accounts: {
        filler: deployment.accounts.filler.privateKey,
        oracle: deployment.accounts.oracle.privateKey,
        simulator: deployment.accounts.simulator.privateKey,
      },
    }),
    { mode: 0o600 },
  );
  opsPort = await freePort();
  simulator = spawnManaged({
    name: "simulator",
    command: process.execPath,
    args: ["--conditions=@platform/source", "--import", "tsx", join(repoRoot, "deploy", "simulator", "src", "main.ts")],
    cwd: repoRoot,
    logFile: join(dir.path, "simulator.log"),
    env: {
      PATH: process.env.PATH,
      CHAINS_FILE: chainsFile,
      SIMULATOR_KEYS_FILE: keysFile,
      OPS_PORT: String(opsPort),
      SIM_DEMO: "false",
      SIM_POLL_INTERVAL_MS: "100",
      SIM_PRICE_INTERVAL_MS: "200",
    },
  });
  await waitFor(
    async () => (await fetch(`http://127.0.0.1:${opsPort}/readyz`).catch(() => undefined))?.status === 200,
    { what: "the simulator ready", timeoutMs: 60_000, intervalMs: 200 },
  );
}, 120_000);

afterAll(async () => {
  await simulator?.stop();
  await Promise.all(anvils.map((anvil) => anvil.stop()));
  dir.remove();
});

describe("the simulator process", () => {
  it("fills and settles a native-coin order a user opens", async () => {
    const target = deployment.chains["origin"]!;
    const chain = defineChain({
      id: 31337,
      name: "origin",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [target.rpcUrl] } },
    });
    const publicClient = createPublicClient({ chain, transport: http(target.rpcUrl), pollingInterval: 50 });
    const user = privateKeyToAccount(generatePrivateKey());
    await createTestClient({ chain, transport: http(target.rpcUrl), mode: "anvil" }).setBalance({
      address: user.address,
      value: parseEther("10"),
    });
    const fillDeadline = Number((await publicClient.getBlock()).timestamp) + 600;
    const orderData = encodeOrderData({
      nonce: 1n,
      destinationChainId: 31338n,
      inputToken: `0x${"00".repeat(32)}`,
      inputAmount: parseEther("1"),
      outputToken: `0x${"00".repeat(32)}`,
      outputAmount: parseEther("0.99"),
      recipient: addressToBytes32(user.address),
    });
    const hash = await createWalletClient({ chain, transport: http(target.rpcUrl), account: user }).writeContract({
      address: target.contracts.fullSettler!,
      abi: fullSettlerAbi,
      functionName: "open",
      args: [{ fillDeadline, orderDataType: orderDataTypeHash, orderData }],
      value: parseEther("1"),
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const orderId: Hex = parseEventLogs({ abi: fullSettlerAbi, eventName: "Open", logs: receipt.logs })[0]!.args
      .orderId;
    await waitFor(
      async () =>
        (await publicClient.readContract({
          address: target.contracts.fullSettler!,
          abi: fullSettlerAbi,
          functionName: "orderStatus",
          args: [orderId],
        })) === OrderStatus.SETTLED,
      {
        what: "the order settled by the simulator process",
        timeoutMs: 30_000,
      },
    );
    expect(await fetch(`http://127.0.0.1:${opsPort}/readyz`).then((response) => response.status)).toBe(200);
  }, 60_000);

  it("submits rounds of the coin/USD feed on the origin chain, with no native chain in the chains file", async () => {
    const target = deployment.chains["origin"]!;
    const publicClient = createPublicClient({ transport: http(target.rpcUrl) });
    const latestRound = () =>
      publicClient.readContract({
        address: target.contracts.priceFeed!,
        abi: priceFeedAbi,
        functionName: "latestRound",
      });
    const before = await latestRound();
    await waitFor(async () => (await latestRound()) >= before + 2n, {
      what: "two more price rounds",
      timeoutMs: 30_000,
      intervalMs: 200,
    });
  }, 60_000);
});
