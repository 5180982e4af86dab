import { join } from "node:path";
import { inspect } from "node:util";
import { configuredChainSchema, createChainClients } from "@platform/chain";
import { type RunningAnvil, startAnvil, tempDir } from "@platform/testing";
import {
  type Address,
  ContractFunctionRevertedError,
  createPublicClient,
  http,
  maxUint256,
  type PublicClient,
  pad,
  parseEventLogs,
  zeroHash,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevnetDeployment, deployDevnet } from "./deployDevnet.js";
import { devnetNativeFunds, devnetSettlerParams, devnetTokens } from "./deploySteps.js";
import {
  erc6492WalletFactoryAbi,
  fullSettlerAbi,
  multicall3Abi,
  priceFeedAggregatorMockAbi,
  testTokenAbi,
} from "./generated/index.js";
import { devnetPriceFeed, devnetPriceUpdaterFunds } from "./oracle/deployPriceFeed.js";

const dir = tempDir("deploy-devnet");
const anvils: RunningAnvil[] = [];
let deployment: DevnetDeployment;
let origin: PublicClient;
let multicall3: Address;
// anvil's first dev account: funded at genesis, so its balance is a real non-zero value to compare.
const funded = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

const names = ["origin", "destination", "subtensor"] as const;
const clients: Record<string, PublicClient> = {};

beforeAll(async () => {
  anvils.push(
    ...(await Promise.all([
      startAnvil({ chainId: 31337, logFile: join(dir.path, "origin.log") }),
      // Interval mining, as the local stack runs its chains: transactions a step sends together must
      // still each get their own nonce and all be confirmed.
      startAnvil({ chainId: 31338, blockTimeSeconds: 1, logFile: join(dir.path, "destination.log") }),
      startAnvil({ chainId: 31964, logFile: join(dir.path, "subtensor.log") }),
    ])),
  );
  deployment = await deployDevnet({
    chains: [
      { name: "origin", chainId: 31337, rpcUrl: anvils[0]!.rpcUrl, roles: ["origin"] },
      { name: "destination", chainId: 31338, rpcUrl: anvils[1]!.rpcUrl, roles: ["destination"] },
      { name: "subtensor", chainId: 31964, rpcUrl: anvils[2]!.rpcUrl, roles: ["native"] },
    ],
  });
  names.forEach((name, index) => {
    clients[name] = createPublicClient({ transport: http(anvils[index]!.rpcUrl) });
  });
  origin = clients["origin"]!;
  multicall3 = deployment.chains["origin"]!.contracts.multicall3;
});

afterAll(async () => {
  await Promise.all(anvils.map((anvil) => anvil.stop()));
  dir.remove();
});

describe("deployDevnet: contracts, settler configuration and funds", () => {
  it("reports every chain by name with its id, RPC URL, and Multicall3 and the wallet factory deployed", async () => {
    expect(Object.keys(deployment.chains)).toEqual([...names]);
    expect(deployment.chains["subtensor"]).toMatchObject({ chainId: 31964, rpcUrl: anvils[2]!.rpcUrl });
    for (const name of names) {
      const { multicall3: multicall, walletFactory } = deployment.chains[name]!.contracts;
      expect((await clients[name]!.getCode({ address: multicall }))?.length).toBeGreaterThan(2);
      // The factory answers as itself: a counterfactual wallet address for any owner and salt.
      const wallet = await clients[name]!.readContract({
        address: walletFactory,
        abi: erc6492WalletFactoryAbi,
        functionName: "getAddress",
        args: [multicall, zeroHash],
      });
      expect(wallet).toMatch(/^0x[0-9a-fA-F]{40}$/);
    }
  });

  it("deploys FullSettler and the test tokens on origin and destination only", async () => {
    for (const name of ["origin", "destination"]) {
      const { fullSettler, tokens } = deployment.chains[name]!.contracts;
      expect((await clients[name]!.getCode({ address: fullSettler! }))?.length).toBeGreaterThan(2);
      expect(Object.keys(tokens!)).toEqual(devnetTokens.map((token) => token.symbol));
    }
    expect(deployment.chains["subtensor"]!.contracts.fullSettler).toBeUndefined();
    expect(deployment.chains["subtensor"]!.contracts.tokens).toBeUndefined();
  });

  it("configures each FullSettler: deployer as owner, the oracle, the devnet deadline bounds, and peers both ways", async () => {
    const settlers = {
      origin: deployment.chains["origin"]!.contracts.fullSettler!,
      destination: deployment.chains["destination"]!.contracts.fullSettler!,
    };
    const other = { origin: "destination", destination: "origin" } as const;
    for (const name of ["origin", "destination"] as const) {
      const client = clients[name]!;
      const read = <F extends "owner" | "oracle" | "minFillWindow" | "maxFillBuffer" | "REFUND_GRACE">(
        functionName: F,
      ) => client.readContract({ address: settlers[name], abi: fullSettlerAbi, functionName });
      expect(await read("owner")).toBe(deployment.accounts.deployer.address);
      expect(await read("oracle")).toBe(deployment.accounts.oracle.address);
      expect(await read("minFillWindow")).toBe(devnetSettlerParams.minFillWindowSeconds);
      expect(await read("maxFillBuffer")).toBe(devnetSettlerParams.maxFillBufferSeconds);
      expect(await read("REFUND_GRACE")).toBe(BigInt(devnetSettlerParams.refundGraceSeconds));
      const otherChainId = deployment.chains[other[name]]!.chainId;
      expect(
        await client.readContract({
          address: settlers[name],
          abi: fullSettlerAbi,
          functionName: "peer",
          args: [BigInt(otherChainId)],
        }),
      ).toBe(pad(settlers[other[name]]).toLowerCase());
      // The native chain has no settler, so no route leads there.
      expect(
        await client.readContract({
          address: settlers[name],
          abi: fullSettlerAbi,
          functionName: "peer",
          args: [31964n],
        }),
      ).toBe(zeroHash);
    }
  });

  it("mints the filler every test token, approves them to the FullSettler and funds the role accounts", async () => {
    const { filler, oracle } = deployment.accounts;
    for (const name of ["origin", "destination"]) {
      const client = clients[name]!;
      const { fullSettler, tokens } = deployment.chains[name]!.contracts;
      for (const token of devnetTokens) {
        const address = tokens![token.symbol]!;
        const read = <F extends "symbol" | "name" | "decimals" | "minter">(functionName: F) =>
          client.readContract({ address, abi: testTokenAbi, functionName });
        expect([await read("symbol"), await read("name"), await read("decimals")]).toEqual([
          token.symbol,
          token.name,
          token.decimals,
        ]);
        expect(await read("minter")).toBe(deployment.accounts.deployer.address);
        expect(
          await client.readContract({ address, abi: testTokenAbi, functionName: "balanceOf", args: [filler.address] }),
        ).toBe(token.fillerFunds);
        expect(
          await client.readContract({
            address,
            abi: testTokenAbi,
            functionName: "allowance",
            args: [filler.address, fullSettler!],
          }),
        ).toBe(maxUint256);
      }
      // The filler paid gas for its approvals out of its funds; the oracle has not spent anything yet.
      expect(await client.getBalance({ address: filler.address })).toBeGreaterThan(
        devnetNativeFunds.filler - 10n ** 16n,
      );
      expect(await client.getBalance({ address: oracle.address })).toBe(devnetNativeFunds.oracle);
    }
  });
});

describe("deployDevnet: the price feed and the accounts", () => {
  it("deploys the TAO/USD feed on the origin chain only, the simulator its updater with gas there", async () => {
    const feed = deployment.chains["origin"]!.contracts.priceFeed!;
    expect(feed).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(deployment.chains["destination"]!.contracts.priceFeed).toBeUndefined();
    expect(deployment.chains["subtensor"]!.contracts.priceFeed).toBeUndefined();
    expect(await origin.readContract({ address: feed, abi: priceFeedAggregatorMockAbi, functionName: "updater" })).toBe(
      deployment.accounts.simulator.address,
    );
    expect(await origin.getBalance({ address: deployment.accounts.simulator.address })).toBe(devnetPriceUpdaterFunds);
  });

  it("answers the feed's Chainlink reads with 8 decimals and announced the first round with AnswerUpdated", async () => {
    const feed = deployment.chains["origin"]!.contracts.priceFeed!;
    const read = <F extends "decimals" | "description" | "latestRoundData">(functionName: F) =>
      origin.readContract({ address: feed, abi: priceFeedAggregatorMockAbi, functionName });
    expect(await read("decimals")).toBe(8);
    expect(await read("description")).toBe("TAO / USD");
    const [roundId, answer, , updatedAt, answeredInRound] = await read("latestRoundData");
    expect([roundId, answer, answeredInRound]).toEqual([1n, devnetPriceFeed.initialAnswer, 1n]);
    const logs = parseEventLogs({
      abi: priceFeedAggregatorMockAbi,
      logs: await origin.getLogs({ address: feed, fromBlock: 0n }),
    });
    expect(logs.map((log) => log.eventName)).toEqual(["NewRound", "AnswerUpdated"]);
    expect(logs[1]!.args).toEqual({ current: devnetPriceFeed.initialAnswer, roundId: 1n, updatedAt });
    await expect(
      origin.readContract({ address: feed, abi: priceFeedAggregatorMockAbi, functionName: "getRoundData", args: [2n] }),
    ).rejects.toThrow(/No data present/);
  });

  it("returns the run's accounts with usable keys that never reach JSON or the console", () => {
    const { accounts } = deployment;
    const all = [accounts.deployer, accounts.oracle, accounts.filler];
    for (const account of all) {
      expect(privateKeyToAccount(account.privateKey).address).toBe(account.address);
    }
    expect(new Set(all.map((account) => account.address)).size).toBe(3);
    const serialized = JSON.stringify(deployment);
    const shown = inspect(deployment, { depth: 10 });
    for (const account of all) {
      expect(serialized).toContain(account.address);
      expect(serialized).not.toContain(account.privateKey.slice(2));
      expect(shown).not.toContain(account.privateKey.slice(2));
      expect({ ...account }).toEqual({ address: account.address });
    }
  });
});

describe("deployDevnet: Multicall3 and the chain id check", () => {
  it("serves viem's multicall: batched reads equal direct reads at the same block", async () => {
    const blockNumber = await origin.getBlockNumber();
    const [balance, batchBlock] = await origin.multicall({
      multicallAddress: multicall3,
      blockNumber,
      allowFailure: false,
      contracts: [
        { address: multicall3, abi: multicall3Abi, functionName: "getEthBalance", args: [funded] },
        { address: multicall3, abi: multicall3Abi, functionName: "getBlockNumber" },
      ],
    });
    expect(balance).toBeGreaterThan(0n);
    expect(balance).toBe(await origin.getBalance({ address: funded, blockNumber }));
    expect(batchBlock).toBe(blockNumber);
  });

  it("is found by viem through the chain configuration, without passing its address", async () => {
    const { publicClient } = createChainClients(
      configuredChainSchema.parse({
        name: "origin",
        chainId: 31337,
        rpcUrl: anvils[0]!.rpcUrl,
        roles: ["origin"],
        blockTimeMs: 1000,
        finality: { safeDepth: 0, finalizedDepth: 0 },
        contracts: { multicall3 },
      }),
    );
    const block = await publicClient.getBlock();
    const [timestamp, chainId, hash] = await publicClient.multicall({
      blockNumber: block.number,
      allowFailure: false,
      contracts: [
        { address: multicall3, abi: multicall3Abi, functionName: "getCurrentBlockTimestamp" },
        { address: multicall3, abi: multicall3Abi, functionName: "getChainId" },
        // The hash of the current block is not visible from inside it; the parent's is.
        { address: multicall3, abi: multicall3Abi, functionName: "getBlockHash", args: [block.number - 1n] },
      ],
    });
    expect(timestamp).toBe(block.timestamp);
    expect(chainId).toBe(31337n);
    expect(hash).toBe(block.parentHash);
  });

  it("reports a failing call as a failure when allowed, and reverts naming the call when not", async () => {
    const failing = { target: multicall3, callData: "0xdeadbeef" as const };
    const allowed = await origin.simulateContract({
      address: multicall3,
      abi: multicall3Abi,
      functionName: "aggregate3",
      args: [[{ ...failing, allowFailure: true }]],
    });
    expect(allowed.result).toEqual([{ success: false, returnData: "0x" }]);

    const refused = await origin
      .simulateContract({
        address: multicall3,
        abi: multicall3Abi,
        functionName: "aggregate3",
        args: [
          [
            { target: funded, allowFailure: false, callData: "0x" },
            { ...failing, allowFailure: false },
          ],
        ],
      })
      .catch((error: unknown) => error);
    const reverted = (refused as { walk(fn: (e: unknown) => boolean): unknown }).walk(
      (cause) => cause instanceof ContractFunctionRevertedError,
    ) as ContractFunctionRevertedError;
    expect(reverted.data?.errorName).toBe("CallFailed");
    expect(reverted.data?.args).toEqual([1n, "0x"]);
  });

  it("refuses a chain that answers with another chain id", async () => {
    await expect(deployDevnet({ chains: [{ name: "origin", chainId: 1, rpcUrl: anvils[0]!.rpcUrl }] })).rejects.toThrow(
      /answers as chain 31337/,
    );
  });
});
