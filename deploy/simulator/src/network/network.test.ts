import { Writable } from "node:stream";
import { join } from "node:path";
import {
  alphaPrecompileMockAbi,
  deployDevnet,
  devnetStorageEntries,
  devnetNetworkStorage,
  devnetSubnets,
  devnetValidators,
  metagraphPrecompileMockAbi,
  precompileMocks,
  priceFeedAggregatorMockAbi,
  stakingV2PrecompileMockAbi,
  storageQueryMockAbi,
  subnetPrecompileMockAbi,
  subtensorStateAbi,
  type DevnetDeployment,
} from "@platform/devnet";
import { createLogger } from "@platform/log";
import {
  alphaAbi,
  evmAddressToAccountId,
  metagraphAbi,
  precompileAddresses,
  priceFeedAbi,
  stakingV2Abi,
  subnetAbi,
  subtensorStorageDecoders,
  subtensorStorageKeys,
} from "@platform/subtensor";
import { startAnvil, tempDir, waitFor, type RunningAnvil } from "@platform/testing";
import {
  bytesToHex,
  toEventSignature,
  toFunctionSignature,
  type Abi,
  type AbiEvent,
  type AbiFunction,
  type AbiParameter,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createNetworkContext,
  networkRandom,
  readTotalIssuance,
  networkTestAccounts,
  sendTransfers,
  simulateNetworkStep,
  startNetworkSimulator,
  type NetworkContext,
} from "./index.js";

const dir = tempDir("network-simulator");
let anvil: RunningAnvil;
let deployment: DevnetDeployment;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 31964, logFile: join(dir.path, "subtensor.log") });
  deployment = await deployDevnet({ chains: [{ name: "subtensor", chainId: 31964, rpcUrl: anvil.rpcUrl, roles: ["native"] }] });
});

afterAll(async () => {
  await anvil.stop();
  dir.remove();
});

const options = (seed: string) => ({
  rpcUrl: anvil.rpcUrl,
  simulatorKey: deployment.accounts.simulator.privateKey,
  seed,
});

/** `name(types) mutability returns (types)`: what must agree between the platform's ABI and the mock's. */
function signatures(abi: Abi | readonly unknown[]): string[] {
  return (abi as readonly (AbiFunction | AbiEvent)[])
    .filter((item) => item.type === "function" || item.type === "event")
    .map((item) =>
      item.type === "function"
        ? `${toFunctionSignature(item)} ${item.stateMutability} returns (${item.outputs.map(typeOf).join(",")})`
        : `${toEventSignature(item)} indexed ${item.inputs.map((input) => (input.indexed ? "y" : "n")).join("")}`,
    );
}

function typeOf(parameter: AbiParameter): string {
  if (!parameter.type.startsWith("tuple")) return parameter.type;
  const components = (parameter as { components: readonly AbiParameter[] }).components;
  return `(${components.map(typeOf).join(",")})${parameter.type.slice("tuple".length)}`;
}

describe("devnet mocks against the platform's precompile ABIs", () => {
  it.each([
    ["alpha", alphaAbi, alphaPrecompileMockAbi],
    ["metagraph", metagraphAbi, metagraphPrecompileMockAbi],
    ["staking V2", stakingV2Abi, stakingV2PrecompileMockAbi],
    ["subnet", subnetAbi, subnetPrecompileMockAbi],
    ["price feed", priceFeedAbi, priceFeedAggregatorMockAbi],
  ] as const)("%s: every function and event of the platform ABI is in the compiled mock with the same signature", (_name, platform, mock) => {
    const compiled = new Set(signatures(mock));
    for (const signature of signatures(platform)) expect(compiled, signature).toContain(signature);
  });

  it("the precompile mocks expose nothing beyond the real ABI (admin functions live on the state contract)", () => {
    expect(signatures(alphaPrecompileMockAbi).sort()).toEqual(signatures(alphaAbi).sort());
    expect(signatures(metagraphPrecompileMockAbi).sort()).toEqual(signatures(metagraphAbi).sort());
    expect(signatures(stakingV2PrecompileMockAbi).sort()).toEqual(signatures(stakingV2Abi).sort());
    expect(signatures(subnetPrecompileMockAbi).sort()).toEqual(signatures(subnetAbi).sort());
    // StorageQuery has no ABI on the chain: the calldata is the raw key. The mock has only a fallback.
    expect(signatures(storageQueryMockAbi)).toEqual([]);
    expect(storageQueryMockAbi.some((item) => item.type === "fallback")).toBe(true);
  });

  it("places the mocks at the platform's precompile addresses", () => {
    const byName = Object.fromEntries(precompileMocks.map((mock) => [mock.name, mock.address]));
    expect(byName).toEqual({
      metagraph: precompileAddresses.metagraph,
      subnet: precompileAddresses.subnet,
      stakingV2: precompileAddresses.stakingV2,
      storageQuery: precompileAddresses.storageQuery,
      alpha: precompileAddresses.alpha,
    });
  });


  it("seeds values that the library's decoders read back as the seed (through 0x…0807 with viem call)", async () => {
    const client = (await createNetworkContext(options("storage"))).publicClient;
    const query = async (key: `0x${string}`) => (await client.call({ to: precompileAddresses.storageQuery, data: key })).data ?? "0x";
    const decode = subtensorStorageDecoders;
    expect(decode.blockEmission(await query(subtensorStorageKeys.blockEmission()))).toBe(devnetNetworkStorage.blockEmissionRao);
    expect(decode.subnetLimit(await query(subtensorStorageKeys.subnetLimit()))).toBe(devnetNetworkStorage.subnetLimit);
    for (const subnet of devnetSubnets) {
      expect(decode.tempo(await query(subtensorStorageKeys.tempo(subnet.netuid)))).toBe(subnet.tempo);
      expect(decode.tokenSymbol(await query(subtensorStorageKeys.tokenSymbol(subnet.netuid)))).toBe(subnet.symbol);
      const identity = decode.subnetIdentityV3(await query(subtensorStorageKeys.subnetIdentityV3(subnet.netuid)));
      expect(identity?.subnetName).toBe(subnet.identity?.subnet_name);
      expect(identity?.logoUrl).toBe(subnet.identity?.logo_url);
      const owner = subnet.owner === undefined ? undefined : devnetValidators[subnet.owner]!;
      expect(decode.subnetOwner(await query(subtensorStorageKeys.subnetOwner(subnet.netuid)))).toBe(owner?.coldkey);
      expect(decode.subnetOwnerHotkey(await query(subtensorStorageKeys.subnetOwnerHotkey(subnet.netuid)))).toBe(owner?.hotkey);
    }
    for (const validator of devnetValidators) {
      expect(decode.delegateTake(await query(subtensorStorageKeys.delegateTake(validator.hotkey)))).toBe(validator.take);
      const { github_repo: githubRepo, ...rest } = validator.identity;
      expect(decode.identityV2(await query(subtensorStorageKeys.identityV2(validator.coldkey)))).toEqual({ ...rest, githubRepo });
    }
    expect(devnetStorageEntries(0n).flat().length).toBeGreaterThan(20);
  });

  it("maps an EVM caller to the same coldkey on chain as evmAddressToAccountId", async () => {
    const context = await createNetworkContext(options("coldkeys"));
    for (const { account } of context.accounts.slice(0, 3)) {
      expect(
        await context.publicClient.readContract({ address: context.state, abi: subtensorStateAbi, functionName: "coldkeyOf", args: [account.address] }),
      ).toBe(bytesToHex(evmAddressToAccountId(account.address)));
    }
  });
});

interface Snapshot {
  pools: { netuid: number; taoIn: bigint; alphaIn: bigint; alphaOut: bigint; price: bigint; moving: bigint; volume: bigint }[];
  totalIssuance: bigint | undefined;
  balances: bigint[];
}

async function snapshot(context: NetworkContext): Promise<Snapshot> {
  const client = context.publicClient;
  const alpha = { address: precompileAddresses.alpha, abi: alphaAbi } as const;
  const pools = [];
  for (const { netuid } of context.subnets) {
    pools.push({
      netuid,
      taoIn: await client.readContract({ ...alpha, functionName: "getTaoInPool", args: [netuid] }),
      alphaIn: await client.readContract({ ...alpha, functionName: "getAlphaInPool", args: [netuid] }),
      alphaOut: await client.readContract({ ...alpha, functionName: "getAlphaOutPool", args: [netuid] }),
      price: await client.readContract({ ...alpha, functionName: "getAlphaPrice", args: [netuid] }),
      moving: await client.readContract({ ...alpha, functionName: "getMovingAlphaPrice", args: [netuid] }),
      volume: await client.readContract({ ...alpha, functionName: "getSubnetVolume", args: [netuid] }),
    });
  }
  return {
    pools,
    balances: await Promise.all(context.accounts.map(({ account }) => client.getBalance({ address: account.address }))),
    totalIssuance: await readTotalIssuance(context),
  };
}

describe("simulateNetworkStep", () => {
  it("moves balances, pools and prices, every transaction mined and successful", async () => {
    const context = await createNetworkContext(options("steps"));
    const before = await snapshot(context);
    const results = [];
    for (let step = 0; step < 3; step++) results.push(await simulateNetworkStep(context));
    const after = await snapshot(context);

    expect(results.map((result) => result.step)).toEqual([1, 2, 3]);
    for (const result of results) {
      expect(result.transactions.map((tx) => tx.what)).toContain("block emissions");
      // The coin/USD feed is on the origin chain now, moved apart (src/price).
      expect(result.transactions.map((tx) => tx.what)).not.toContain("price feed round");
      expect(result.transactions.some((tx) => tx.what.startsWith("transfer"))).toBe(true);
    }
    expect(after.balances).not.toEqual(before.balances);
    for (const subnet of context.subnets.filter((candidate) => candidate.mechanism !== 0)) {
      const [was, now] = [before.pools, after.pools].map((pools) => pools.find((pool) => pool.netuid === subnet.netuid)!);
      // Emissions inject TAO and mint alpha out every step.
      expect(now!.taoIn).toBeGreaterThan(was!.taoIn);
      expect(now!.alphaOut).toBeGreaterThan(was!.alphaOut);
      // The precompile's price is always the chain's: τ/α truncated to 9 decimals, scaled by 1e18.
      expect(now!.price).toBe(((now!.taoIn * 10n ** 9n) / now!.alphaIn) * 10n ** 9n);
    }
    expect(after.pools.some((pool, index) => pool.volume > before.pools[index]!.volume)).toBe(true);
    expect(after.pools.some((pool, index) => pool.moving !== before.pools[index]!.moving)).toBe(true);
    // TotalIssuance grows by exactly the TAO the steps injected into the pools as emission.
    const emitted = results.flatMap((result) => result.transactions.filter((tx) => tx.what.startsWith("total issuance +")).map((tx) => BigInt(/\+(\d+)/.exec(tx.what)![1]!)));
    expect(emitted).toHaveLength(3);
    expect(after.totalIssuance).toBe(before.totalIssuance! + emitted.reduce((sum, rao) => sum + rao, 0n));
  });

  it("replays the same activity and ends in the same state for the same seed", async () => {
    const checkpoint = await (await createNetworkContext(options("replay"))).testClient.snapshot();
    const run = async () => {
      const context = await createNetworkContext(options("replay"));
      const whats = [];
      for (let step = 0; step < 3; step++) whats.push((await simulateNetworkStep(context)).transactions.map((tx) => tx.what));
      // Balances are left out: gas prices follow the node's fee market, not the seed.
      const { pools } = await snapshot(context);
      return { whats, pools };
    };
    const first = await run();
    const context = await createNetworkContext(options("replay"));
    await context.testClient.revert({ id: checkpoint });
    const second = await run();
    expect(second).toEqual(first);
    const other = networkRandom("another seed");
    expect([other.next(), other.next()]).not.toEqual([networkRandom("replay").next(), networkRandom("replay").next()]);
  });
});

describe("sendTransfers", () => {
  it("lands 1,000 transfers from one account in a few blocks", async () => {
    const context = await createNetworkContext(options("bulk"));
    const [from, to] = networkTestAccounts("bulk", 2);
    await context.testClient.setBalance({ address: from!.address, value: 10n ** 21n });
    const client = context.publicClient;
    const [nonceBefore, received, blockBefore] = await Promise.all([
      client.getTransactionCount({ address: from!.address }),
      client.getBalance({ address: to!.address }),
      client.getBlockNumber(),
    ]);
    const hashes = await sendTransfers(context, from!, to!.address, 1_000, { amountRao: 1_000n });
    expect(new Set(hashes).size).toBe(1_000);
    expect(await client.getTransactionCount({ address: from!.address })).toBe(nonceBefore + 1_000);
    expect(await client.getBalance({ address: to!.address })).toBe(received + 1_000n * 1_000n * 10n ** 9n);
    expect(Number((await client.getBlockNumber()) - blockBefore)).toBeLessThanOrEqual(2);
    // Automine is back on: an ordinary transaction is mined without asking.
    expect(await context.testClient.getAutomine()).toBe(true);
  });
});

describe("startNetworkSimulator", () => {
  it("runs steps on its timer until stopped", async () => {
    const lines: string[] = [];
    const log = createLogger({
      service: "test",
      level: "debug",
      destination: new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }),
    });
    const simulator = await startNetworkSimulator({ ...options("timer"), intervalMs: 20, log });
    await waitFor(async () => simulator.context.steps >= 2, { what: "two network steps", timeoutMs: 30_000 });
    await simulator.stop();
    const steps = simulator.context.steps;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(simulator.context.steps).toBe(steps);
    expect(lines.some((line) => line.includes("network step"))).toBe(true);
    expect(lines.some((line) => line.includes("network step failed"))).toBe(false);
    expect(lines.join("")).not.toContain(deployment.accounts.simulator.privateKey.slice(2));
  });
});
