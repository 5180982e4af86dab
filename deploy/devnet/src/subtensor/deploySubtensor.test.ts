import { join } from "node:path";
import { inspect } from "node:util";
import { startAnvil, tempDir, type RunningAnvil } from "@platform/testing";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  hexToBytes,
  http,
  parseEther,
  toFunctionSelector,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployDevnet, type DevnetDeployment } from "../deployDevnet.js";
import {
  alphaPrecompileMockAbi,
  metagraphPrecompileMockAbi,
  stakingV2PrecompileMockAbi,
  storageQueryMockAbi,
  subnetPrecompileMockAbi,
  subtensorStateAbi,
} from "../generated/index.js";
import { devnetSimulatorFunds } from "./deploySubtensor.js";
import { precompileMocks } from "./precompileMocks.js";
import { devnetHolders, devnetNetworkStorage, devnetSubnets, devnetValidators } from "./seed.js";
import { devnetStorageEntries } from "./storage/storageEntries.js";
import { subtensorStorageKeys as storageKeys } from "@platform/subtensor";

const dir = tempDir("deploy-subtensor");
let anvil: RunningAnvil;
let deployment: DevnetDeployment;
let client: PublicClient;
let state: Address;

const ALPHA = "0x0000000000000000000000000000000000000808";
const METAGRAPH = "0x0000000000000000000000000000000000000802";
const SUBNET = "0x0000000000000000000000000000000000000803";
const STAKING = "0x0000000000000000000000000000000000000805";
const STORAGE_QUERY = "0x0000000000000000000000000000000000000807";

/** StorageQuery as a contract calls it: the raw key is the whole calldata, the output raw SCALE bytes. */
async function storageQuery(key: Hex): Promise<Hex> {
  const { data } = await client.call({ to: STORAGE_QUERY, data: key });
  return data ?? "0x";
}

/** Little-endian unsigned integer of raw SCALE bytes. */
const uintLE = (raw: Hex) => BigInt(`0x${(raw.slice(2).match(/../g) ?? []).reverse().join("") || "0"}`);
/** `Vec<u8>` text with a one-byte compact length (every seeded text is under 64 bytes). */
function text(raw: Hex, at = 0): { value: string; next: number } {
  const bytes = hexToBytes(raw);
  const length = bytes[at]! >> 2;
  return { value: new TextDecoder().decode(bytes.subarray(at + 1, at + 1 + length)), next: at + 1 + length };
}

const alpha = <F extends "getTaoInPool" | "getAlphaInPool" | "getAlphaOutPool" | "getAlphaPrice" | "getSubnetMechanism" | "getMovingAlphaPrice">(
  functionName: F,
  netuid: number,
) => client.readContract({ address: ALPHA, abi: alphaPrecompileMockAbi, functionName, args: [netuid] }) as Promise<bigint | number>;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 31964, logFile: join(dir.path, "subtensor.log") });
  deployment = await deployDevnet({ chains: [{ name: "subtensor", chainId: 31964, rpcUrl: anvil.rpcUrl, roles: ["native"] }] });
  client = createPublicClient({ transport: http(anvil.rpcUrl) });
  state = deployment.chains["subtensor"]!.subtensor!.state;
});

afterAll(async () => {
  await anvil.stop();
  dir.remove();
});

describe("deployDevnet on the native chain", () => {
  it("places the precompile mocks at the real addresses, pointing at the state contract", async () => {
    for (const mock of precompileMocks) {
      expect(await client.getCode({ address: mock.address }), mock.name).toBe(mock.code);
      expect(await client.getStorageAt({ address: mock.address, slot: "0x0" })).toBe(
        `0x${state.slice(2).toLowerCase().padStart(64, "0")}`,
      );
    }
    expect(await client.readContract({ address: state, abi: subtensorStateAbi, functionName: "simulator" })).toBe(
      deployment.accounts.simulator.address,
    );
  });

  it("reports the state apart from the chain contracts (the price feed is on the origin chain), keeping the simulator key hidden", () => {
    const native = deployment.chains["subtensor"]!;
    expect(Object.keys(native.contracts).sort()).toEqual(["multicall3", "walletFactory"]);
    const { simulator } = deployment.accounts;
    expect(privateKeyToAccount(simulator.privateKey).address).toBe(simulator.address);
    expect(JSON.stringify(deployment)).not.toContain(simulator.privateKey.slice(2));
    expect(inspect(deployment, { depth: 10 })).not.toContain(simulator.privateKey.slice(2));
  });

  it("seeds pools whose price is τ_in/α_in truncated to 9 decimals and scaled by 1e18; root is stable at 1", async () => {
    expect(await alpha("getSubnetMechanism", 0)).toBe(0);
    expect(await alpha("getAlphaPrice", 0)).toBe(10n ** 18n);
    for (const subnet of devnetSubnets.filter((candidate) => candidate.netuid !== 0)) {
      const taoIn = (await alpha("getTaoInPool", subnet.netuid)) as bigint;
      const alphaIn = (await alpha("getAlphaInPool", subnet.netuid)) as bigint;
      expect(await alpha("getSubnetMechanism", subnet.netuid)).toBe(1);
      // Seeded stakes bought alpha: more TAO, less alpha than at registration.
      expect(taoIn).toBeGreaterThan(subnet.taoIn);
      expect(alphaIn).toBeLessThan(subnet.alphaIn);
      const price = (await alpha("getAlphaPrice", subnet.netuid)) as bigint;
      expect(price).toBe(((taoIn * 10n ** 9n) / alphaIn) * 10n ** 9n);
      expect(price % 10n ** 9n).toBe(0n);
    }
    // Root: every staked TAO is root alpha, 1:1.
    const rootStake = [
      ...devnetValidators.map((validator) => validator.selfStake),
      ...devnetHolders.flatMap((holder) => holder.stakes.filter((stake) => stake.netuid === 0).map((stake) => stake.tao)),
    ].reduce((sum, tao) => sum + tao, 0n);
    expect(await alpha("getTaoInPool", 0)).toBe(rootStake);
    expect(await alpha("getAlphaOutPool", 0)).toBe(rootStake);
  });

  it("holds every pool's TAO in native coin, so unstaking is paid from a real balance", async () => {
    let pooled = 0n;
    for (const subnet of devnetSubnets) pooled += (await alpha("getTaoInPool", subnet.netuid)) as bigint;
    expect(await client.getBalance({ address: state })).toBe(pooled * 10n ** 9n);
    expect(await client.getBalance({ address: deployment.accounts.simulator.address })).toBeLessThan(devnetSimulatorFunds);
  });

  it("seeds the metagraph: validators first with permits, miners after, rank and trust always 0", async () => {
    const meta = <F extends "getHotkey" | "getColdkey" | "getValidatorStatus" | "getRank" | "getTrust" | "getVtrust" | "getStake">(
      functionName: F,
      netuid: number,
      uid: number,
    ) => client.readContract({ address: METAGRAPH, abi: metagraphPrecompileMockAbi, functionName, args: [netuid, uid] });
    expect(await client.readContract({ address: METAGRAPH, abi: metagraphPrecompileMockAbi, functionName: "getUidCount", args: [1] })).toBe(4);
    expect(await meta("getHotkey", 1, 0)).toBe(devnetValidators[0]!.hotkey);
    expect(await meta("getColdkey", 1, 0)).toBe(devnetValidators[0]!.coldkey);
    expect(await meta("getValidatorStatus", 1, 0)).toBe(true);
    expect(await meta("getValidatorStatus", 1, 2)).toBe(false);
    expect(await meta("getRank", 1, 0)).toBe(0);
    expect(await meta("getTrust", 1, 0)).toBe(0);
    expect(await meta("getVtrust", 1, 0)).toBeGreaterThanOrEqual(40_000);
    // TAO-valued stake over every subnet, the same figure as staking's getTotalHotkeyStake.
    const total = await client.readContract({
      address: STAKING,
      abi: stakingV2PrecompileMockAbi,
      functionName: "getTotalHotkeyStake",
      args: [devnetValidators[0]!.hotkey],
    });
    expect(BigInt(await meta("getStake", 1, 0))).toBe(total);
    expect(total).toBeGreaterThan(devnetValidators[0]!.selfStake);
    // An unknown UID reads as zeros, as the chain's vectors default.
    expect(await meta("getHotkey", 1, 99)).toBe(`0x${"0".repeat(64)}`);
  });

  it("lists the coldkeys staking to a hotkey (getAlphaStakedValidators) and their positions add up", async () => {
    const validator = devnetValidators[0]!;
    const netuid = 1;
    const coldkeys = (await client.readContract({
      address: STAKING,
      abi: stakingV2PrecompileMockAbi,
      functionName: "getAlphaStakedValidators",
      args: [validator.hotkey, BigInt(netuid)],
    })) as readonly bigint[];
    const asKeys = coldkeys.map((word) => `0x${word.toString(16).padStart(64, "0")}` as Hex);
    expect(asKeys).toContain(validator.coldkey);
    let sum = 0n;
    for (const coldkey of asKeys) {
      sum += await client.readContract({
        address: STAKING,
        abi: stakingV2PrecompileMockAbi,
        functionName: "getStake",
        args: [validator.hotkey, coldkey, BigInt(netuid)],
      });
    }
    expect(sum).toBe(
      await client.readContract({
        address: STAKING,
        abi: stakingV2PrecompileMockAbi,
        functionName: "getTotalAlphaStaked",
        args: [validator.hotkey, BigInt(netuid)],
      }),
    );
  });

  it("answers the subnet precompile's hyperparameters and registration block", async () => {
    const read = <F extends "getKappa" | "getNetworkRegistrationBlock" | "getLiquidAlphaEnabled" | "getAlphaValues" | "getMinBurn">(
      functionName: F,
      netuid: number,
    ) => client.readContract({ address: SUBNET, abi: subnetPrecompileMockAbi, functionName, args: [netuid] });
    expect(await read("getKappa", 1)).toBe(32_000);
    expect(await read("getLiquidAlphaEnabled", 2)).toBe(true);
    expect(await read("getMinBurn", 3)).toBe(1_000_000n);
    expect(await read("getAlphaValues", 1)).toEqual([45_875, 58_982]);
    expect(await read("getNetworkRegistrationBlock", 3)).toBeGreaterThan(0n);
  });

  it("answers StorageQuery (0x…0807) with the raw SCALE bytes the deploy wrote at each raw key", async () => {
    let pooled = 0n;
    for (const subnet of devnetSubnets) pooled += (await alpha("getTaoInPool", subnet.netuid)) as bigint;
    const entries = devnetStorageEntries(pooled + devnetNetworkStorage.freeIssuanceRao).flat();
    for (const entry of entries) expect(await storageQuery(entry.key), entry.what).toBe(entry.value);

    expect(uintLE(await storageQuery(storageKeys.totalIssuance()))).toBe(pooled + devnetNetworkStorage.freeIssuanceRao);
    expect(uintLE(await storageQuery(storageKeys.blockEmission()))).toBe(1_000_000_000n);
    expect(uintLE(await storageQuery(storageKeys.subnetLimit()))).toBe(64n);
    for (const subnet of devnetSubnets) {
      expect(uintLE(await storageQuery(storageKeys.tempo(subnet.netuid)))).toBe(BigInt(subnet.tempo));
      expect(text(await storageQuery(storageKeys.tokenSymbol(subnet.netuid))).value).toBe(subnet.symbol);
    }
    const identity = await storageQuery(storageKeys.subnetIdentityV3(2));
    expect(text(identity).value).toBe("Lumen");
    expect(await storageQuery(storageKeys.subnetOwner(2))).toBe(devnetValidators[2]!.coldkey);
    const validator = devnetValidators[1]!;
    expect(uintLE(await storageQuery(storageKeys.delegateTake(validator.hotkey)))).toBe(BigInt(validator.take));
    const chainIdentity = await storageQuery(storageKeys.identityV2(validator.coldkey));
    const name = text(chainIdentity);
    expect([name.value, text(chainIdentity, name.next).value]).toEqual([validator.identity.name, validator.identity.url]);
  });

  it("answers StorageQuery like the chain for what is not stored: empty output, and a failure outside the allowed pallets", async () => {
    // Root has no identity; a miner has no stored take.
    expect(await storageQuery(storageKeys.subnetIdentityV3(0))).toBe("0x");
    expect(await storageQuery(storageKeys.delegateTake(`0x${"ab".repeat(32)}`))).toBe("0x");
    // System.Account of some account: System is not allow-listed.
    await expect(storageQuery(`0x26aa394eea5630e07c48ae0c9558cef7b99d880ec681799c0cf30e8886371da9${"00".repeat(48)}`)).rejects.toThrow();
    await expect(storageQuery("0x658faa")).rejects.toThrow();
    // No function of its own: any calldata is a key.
    expect((storageQueryMockAbi as readonly { type: string }[]).filter((item) => item.type === "function")).toEqual([]);
  });

  it("lets an EVM account stake with msg.value and unstake back into its balance; refuses others' admin calls", async () => {
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    const transport = http(anvil.rpcUrl);
    await createTestClient({ mode: "anvil", transport }).setBalance({ address: account.address, value: parseEther("100") });
    const wallet = createWalletClient({ account, transport, chain: null });
    const hotkey = devnetValidators[1]!.hotkey;
    const coldkey = await client.readContract({ address: state, abi: subtensorStateAbi, functionName: "coldkeyOf", args: [account.address] });
    const taoBefore = (await alpha("getTaoInPool", 3)) as bigint;
    const expected = await client.readContract({ address: ALPHA, abi: alphaPrecompileMockAbi, functionName: "simSwapTaoForAlpha", args: [3, 10n ** 9n] });

    // 1 TAO = 1e9 rao as the argument, 1e18 wei as the value.
    const staked = await wallet.writeContract({ address: STAKING, abi: stakingV2PrecompileMockAbi, functionName: "addStake", args: [hotkey, 10n ** 9n, 3n], value: 10n ** 18n });
    const stakeReceipt = await client.waitForTransactionReceipt({ hash: staked });
    expect(stakeReceipt.status).toBe("success");
    expect(stakeReceipt.logs).toEqual([]);
    const position = await client.readContract({ address: STAKING, abi: stakingV2PrecompileMockAbi, functionName: "getStake", args: [hotkey, coldkey, 3n] });
    expect(position).toBe(expected);
    expect(await alpha("getTaoInPool", 3)).toBe(taoBefore + 10n ** 9n);

    const balanceBefore = await client.getBalance({ address: account.address });
    const unstaked = await wallet.writeContract({ address: STAKING, abi: stakingV2PrecompileMockAbi, functionName: "removeStakeFull", args: [hotkey, 3n] });
    const receipt = await client.waitForTransactionReceipt({ hash: unstaked });
    const gas = receipt.gasUsed * receipt.effectiveGasPrice;
    const proceeds = (await client.getBalance({ address: account.address })) - balanceBefore + gas;
    expect(proceeds % 10n ** 9n).toBe(0n);
    // No fee: selling straight back returns the stake less rounding.
    expect(proceeds).toBeLessThanOrEqual(10n ** 18n);
    expect(proceeds).toBeGreaterThan(10n ** 18n - 10n ** 9n * 10n);
    expect(await client.readContract({ address: STAKING, abi: stakingV2PrecompileMockAbi, functionName: "getStake", args: [hotkey, coldkey, 3n] })).toBe(0n);

    await expect(
      wallet.writeContract({ address: STAKING, abi: stakingV2PrecompileMockAbi, functionName: "addStake", args: [hotkey, 10n ** 9n, 3n], value: 1n }),
      // The state contract's error, bubbled through the mock (whose ABI, like the real one, does not name it).
    ).rejects.toThrow(toFunctionSelector("WrongValue(uint256,uint256)"));
    await expect(
      wallet.writeContract({ address: state, abi: subtensorStateAbi, functionName: "setTaoWeight", args: [1n] }),
    ).rejects.toThrow(/NotSimulator/);
    await expect(
      wallet.writeContract({ address: state, abi: subtensorStateAbi, functionName: "setRawStorage", args: [[storageKeys.subnetLimit()], ["0x0100"]] }),
    ).rejects.toThrow(/NotSimulator/);
    await expect(
      wallet.writeContract({ address: state, abi: subtensorStateAbi, functionName: "addStakeFromEvm", args: [account.address, hotkey, 1n, 3n] }),
    ).rejects.toThrow(/NotPrecompile/);
  });
});
