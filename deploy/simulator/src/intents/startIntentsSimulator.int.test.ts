import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ChainConfig, loadChainConfig } from "@platform/chain";
import {
  addressToBytes32,
  type DevnetDeployment,
  deployDevnet,
  encodeOrderData,
  fullSettlerAbi,
  OrderStatus,
  orderDataTypeHash,
  testTokenAbi,
} from "@platform/devnet";
import { createLogger } from "@platform/log";
import { type RunningAnvil, startAnvil, tempDir, waitFor } from "@platform/testing";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  maxUint256,
  parseEther,
  parseEventLogs,
  zeroAddress,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningIntentsSimulator, startIntentsSimulator } from "./startIntentsSimulator.js";

// The simulator against two real anvil chains with the devnet contracts: an order a user opens is
// filled on the destination and settled on the origin by it alone; one paying no fee is left open;
// demo users open orders of their own, and an unfilled one is refunded once its time comes.
const dir = tempDir("simulator-intents");
const template = fileURLToPath(new URL("../../../config/local/chains.json", import.meta.url));
const log = createLogger({ service: "simulator-test", level: "silent" });
const anvils: RunningAnvil[] = [];
let deployment: DevnetDeployment;
let chains: ChainConfig;
let running: RunningIntentsSimulator | undefined;

const side = (name: "origin" | "destination") => {
  const target = deployment.chains[name]!;
  const chain = defineChain({
    id: target.chainId,
    name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [target.rpcUrl] } },
  });
  const transport = http(target.rpcUrl);
  return {
    settler: target.contracts.fullSettler!,
    usdc: target.contracts.tokens!["USDC"]!,
    publicClient: createPublicClient({ chain, transport, pollingInterval: 50 }),
    testClient: createTestClient({ chain, transport, mode: "anvil" }),
    wallet: (key: Hex) =>
      createWalletClient({ chain, transport, account: privateKeyToAccount(key), pollingInterval: 50 }),
  };
};

beforeAll(async () => {
  anvils.push(
    ...(await Promise.all([
      startAnvil({ chainId: 31337, logFile: join(dir.path, "origin.log") }),
      startAnvil({ chainId: 31338, logFile: join(dir.path, "destination.log") }),
    ])),
  );
  deployment = await deployDevnet({
    chains: [
      { name: "origin", chainId: 31337, rpcUrl: anvils[0]!.rpcUrl, roles: ["origin"] },
      { name: "destination", chainId: 31338, rpcUrl: anvils[1]!.rpcUrl, roles: ["destination"] },
    ],
  });
  const local = await loadChainConfig(template);
  chains = {
    ...local,
    chains: local.chains
      .filter((chain) => chain.name in deployment.chains)
      .map((chain) => ({
        ...chain,
        rpcUrl: deployment.chains[chain.name]!.rpcUrl,
        contracts: { ...chain.contracts, ...deployment.chains[chain.name]!.contracts },
      })),
  };
}, 120_000);

afterAll(async () => {
  await running?.stop();
  await Promise.all(anvils.map((anvil) => anvil.stop()));
  dir.remove();
});

/** Opens a USDC order origin → destination as a fresh user funded by the deployer (the token minter). */
async function openUsdcOrder(outputAmount: bigint): Promise<Hex> {
  const origin = side("origin");
  const destination = side("destination");
  const user = generatePrivateKey();
  const address = privateKeyToAccount(user).address;
  await origin.testClient.setBalance({ address, value: parseEther("1") });
  const minted = await origin
    .wallet(deployment.accounts.deployer.privateKey)
    .writeContract({ address: origin.usdc, abi: testTokenAbi, functionName: "mint", args: [address, 100_000_000n] });
  await origin.publicClient.waitForTransactionReceipt({ hash: minted });
  const approved = await origin.wallet(user).writeContract({
    address: origin.usdc,
    abi: testTokenAbi,
    functionName: "approve",
    args: [origin.settler, maxUint256],
  });
  await origin.publicClient.waitForTransactionReceipt({ hash: approved });
  const now = (await origin.publicClient.getBlock()).timestamp;
  const orderData = encodeOrderData({
    nonce: 1n,
    destinationChainId: 31338n,
    inputToken: addressToBytes32(origin.usdc),
    inputAmount: 100_000_000n,
    outputToken: addressToBytes32(destination.usdc),
    outputAmount,
    recipient: addressToBytes32(address),
  });
  const hash = await origin.wallet(user).writeContract({
    address: origin.settler,
    abi: fullSettlerAbi,
    functionName: "open",
    args: [{ fillDeadline: Number(now) + 600, orderDataType: orderDataTypeHash, orderData }],
  });
  const receipt = await origin.publicClient.waitForTransactionReceipt({ hash });
  return parseEventLogs({ abi: fullSettlerAbi, eventName: "Open", logs: receipt.logs })[0]!.args.orderId;
}

const originStatus = (orderId: Hex) =>
  side("origin").publicClient.readContract({
    address: side("origin").settler,
    abi: fullSettlerAbi,
    functionName: "orderStatus",
    args: [orderId],
  });
const filledBy = (orderId: Hex): Promise<Address> =>
  side("destination").publicClient.readContract({
    address: side("destination").settler,
    abi: fullSettlerAbi,
    functionName: "filledBy",
    args: [orderId],
  });

describe("the intents simulator", () => {
  it("fills an opened order on the destination and settles it on the origin, and leaves one paying no fee open", async () => {
    running = await startIntentsSimulator({
      chains,
      filler: privateKeyToAccount(deployment.accounts.filler.privateKey),
      oracle: privateKeyToAccount(deployment.accounts.oracle.privateKey),
      pollIntervalMs: 100,
      minFeeBps: 1,
      log,
    });
    // The free order first: once the later one is settled, the simulator has seen and passed it over.
    const free = await openUsdcOrder(100_000_000n);
    const paying = await openUsdcOrder(99_850_000n);
    await waitFor(async () => (await originStatus(paying)) === OrderStatus.SETTLED, {
      what: "the order settled",
      timeoutMs: 30_000,
    });
    expect(await filledBy(paying)).toBe(deployment.accounts.filler.address);
    // The chain says SETTLED as soon as the settle transaction is mined; the simulator counts it once
    // its receipt comes back, a moment later.
    await waitFor(async () => running!.stats().settled >= 1, { what: "the settlement counted", timeoutMs: 10_000 });
    expect(running.stats()).toMatchObject({ filled: 1, settled: 1 });

    expect(await originStatus(free)).toBe(OrderStatus.OPENED);
    expect(await filledBy(free)).toBe(zeroAddress);
    await running.stop();
    running = undefined;
  }, 60_000);

  it("runs demo users whose orders get filled and settled, and refunds an unfilled one after its deadline", async () => {
    running = await startIntentsSimulator({
      chains,
      filler: privateKeyToAccount(deployment.accounts.filler.privateKey),
      oracle: privateKeyToAccount(deployment.accounts.oracle.privateKey),
      pollIntervalMs: 100,
      minFeeBps: 1,
      demo: { users: 2, orderIntervalMs: 200, fillWindowSeconds: 40, unfilledEvery: 2, seed: 7 },
      log,
    });
    await waitFor(async () => running!.stats().opened >= 4 && running!.stats().settled >= 2, {
      what: "demo orders opened, filled and settled",
      timeoutMs: 40_000,
    });
    // Past every demo order's deadline and refund grace, on both clocks (automine: a block makes the time).
    for (const name of ["origin", "destination"] as const) {
      await side(name).testClient.increaseTime({ seconds: 200 });
      await side(name).testClient.mine({ blocks: 1 });
    }
    await waitFor(async () => running!.stats().refunded >= 1, {
      what: "an unfilled demo order refunded",
      timeoutMs: 30_000,
    });
  }, 90_000);
});
