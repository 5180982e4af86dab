import { join } from "node:path";
import { configuredChainSchema, createChainClients } from "@platform/chain";
import { startAnvil, tempDir, type RunningAnvil } from "@platform/testing";
import { ContractFunctionRevertedError, createPublicClient, http, type Address, type PublicClient } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployDevnet, type DevnetDeployment } from "./deployDevnet.js";
import { multicall3Abi } from "./generated/index.js";

const dir = tempDir("deploy-devnet");
const anvils: RunningAnvil[] = [];
let deployment: DevnetDeployment;
let origin: PublicClient;
let multicall3: Address;
// anvil's first dev account: funded at genesis, so its balance is a real non-zero value to compare.
const funded = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

beforeAll(async () => {
  anvils.push(await startAnvil({ chainId: 31337, logFile: join(dir.path, "origin.log") }));
  anvils.push(await startAnvil({ chainId: 31964, logFile: join(dir.path, "subtensor.log") }));
  deployment = await deployDevnet({
    chains: [
      { name: "origin", chainId: 31337, rpcUrl: anvils[0]!.rpcUrl, roles: ["origin"] },
      { name: "subtensor", chainId: 31964, rpcUrl: anvils[1]!.rpcUrl, roles: ["native"] },
    ],
  });
  origin = createPublicClient({ transport: http(anvils[0]!.rpcUrl) });
  multicall3 = deployment["origin"]!.contracts.multicall3;
});

afterAll(async () => {
  await Promise.all(anvils.map((anvil) => anvil.stop()));
  dir.remove();
});

describe("deployDevnet", () => {
  it("reports every chain by name with its id, RPC URL and a deployed Multicall3", async () => {
    expect(Object.keys(deployment)).toEqual(["origin", "subtensor"]);
    expect(deployment["subtensor"]).toMatchObject({ chainId: 31964, rpcUrl: anvils[1]!.rpcUrl });
    for (const [index, name] of ["origin", "subtensor"].entries()) {
      const client = createPublicClient({ transport: http(anvils[index]!.rpcUrl) });
      const code = await client.getCode({ address: deployment[name]!.contracts.multicall3 });
      expect(code?.length).toBeGreaterThan(2);
    }
  });

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
        args: [[{ target: funded, allowFailure: false, callData: "0x" }, { ...failing, allowFailure: false }]],
      })
      .catch((error: unknown) => error);
    const reverted = (refused as { walk(fn: (e: unknown) => boolean): unknown }).walk(
      (cause) => cause instanceof ContractFunctionRevertedError,
    ) as ContractFunctionRevertedError;
    expect(reverted.data?.errorName).toBe("CallFailed");
    expect(reverted.data?.args).toEqual([1n, "0x"]);
  });

  it("refuses a chain that answers with another chain id", async () => {
    await expect(
      deployDevnet({ chains: [{ name: "origin", chainId: 1, rpcUrl: anvils[0]!.rpcUrl }] }),
    ).rejects.toThrow(/answers as chain 31337/);
  });
});
