import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startChopsticks, tempDir, type RunningChopsticks } from "@platform/testing";
import { subtensorChainSpec } from "./chainSpec.js";
import {
  connectNativeChain,
  nativeDevPair,
  nativeKeyring,
  nativeTx,
  readNativeInteger,
  type NativeChain,
} from "./nativeChain.js";
import { blockEvents, eventsOfExtrinsic, findEvents } from "./nativeEvents.js";
import { NativeCallError, sendNativeCalls } from "./nativeSubmit.js";
import { seedNativeNetwork } from "./seedNativeNetwork.js";
import { NATIVE_ACTIVITY_KINDS, type NativeActivityKind, type SeededNativeNetwork } from "./seedTypes.js";

/** The event each kind of activity must have emitted from its own extrinsic. */
const EXPECTED_EVENT: Record<NativeActivityKind, string> = {
  transfer: "balances.Transfer",
  stakeAdd: "subtensorModule.StakeAdded",
  stakeRemove: "subtensorModule.StakeRemoved",
  stakeMove: "subtensorModule.StakeMoved",
  register: "subtensorModule.NeuronRegistered",
  subnetRegister: "subtensorModule.NetworkAdded",
  evm: "ethereum.Executed",
};

let node: RunningChopsticks;
let chain: NativeChain;

beforeAll(async () => {
  node = await startChopsticks({
    genesis: subtensorChainSpec(),
    logFile: join(tempDir("seed-native").path, "node.log"),
  });
  chain = await connectNativeChain(node.rpcUrl);
});
afterAll(async () => {
  await chain?.close();
  await node?.stop();
});

const account = (seeded: SeededNativeNetwork, name: string) =>
  seeded.accounts.find((candidate) => candidate.name === name)!;

describe("seedNativeNetwork", () => {
  let seeded: SeededNativeNetwork;

  it("seeds every kind of activity with real extrinsics in a few blocks built on demand", async () => {
    const started = Date.now();
    seeded = await seedNativeNetwork({ rpcUrl: node.rpcUrl, buildBlock: () => node.newBlocks(1) });
    console.info(`seeded in ${Date.now() - started} ms, blocks #${seeded.blocks.first}..#${seeded.blocks.last}`);
    expect(seeded.blocks.last - seeded.blocks.first + 1).toBeLessThanOrEqual(15);
    expect(seeded.netuids).toHaveLength(3);
    expect(new Set(seeded.netuids).size).toBe(3);
    for (const kind of NATIVE_ACTIVITY_KINDS) expect(seeded.activity[kind].length, kind).toBeGreaterThan(0);
    expect(seeded.activity.stakeAdd.map((entry) => entry.label).join()).toMatch(/subnet \d+.*subnet \d+/);
    expect(JSON.parse(JSON.stringify(seeded))).toEqual(seeded);
  }, 180_000);

  it("describes where each extrinsic landed, with the event of its kind", async () => {
    const { api } = chain;
    for (const entry of Object.values(seeded.activity).flat()) {
      const block = await api.rpc.chain.getBlock(entry.blockHash);
      expect(block.block.header.number.toNumber()).toBe(entry.blockNumber);
      expect(block.block.extrinsics[entry.extrinsicIndex]!.hash.toHex()).toBe(entry.extrinsicHash);
      const events = eventsOfExtrinsic(await blockEvents(api, entry.blockHash), entry.extrinsicIndex);
      expect(findEvents(events, EXPECTED_EVENT[entry.kind]), entry.label).not.toHaveLength(0);
      expect(findEvents(events, "system.ExtrinsicSuccess"), entry.label).toHaveLength(1);
    }
    const [evm] = seeded.activity.evm;
    const executed = findEvents(
      eventsOfExtrinsic(await blockEvents(api, evm!.blockHash), evm!.extrinsicIndex),
      "ethereum.Executed",
    )[0]!;
    expect(executed.data[0]!.toString().toLowerCase()).toBe(account(seeded, "evm").evmH160!.toLowerCase());
    expect(executed.data[2]!.toString()).toBe(evm!.ethereumHash);
  });

  it("leaves the subnets, neurons, balances and stake it describes", async () => {
    const { api } = chain;
    for (const subnet of seeded.subnets) {
      const identity = (await api.query.subtensorModule!.subnetIdentities!(subnet.netuid)).toHuman() as {
        subnetName: string;
      } | null;
      expect(identity?.subnetName).toBe(subnet.name);
      expect(await readNativeInteger(api, "subtensorModule", "subnetMechanism", subnet.netuid)).toBe(1n);
      expect(subnet.neurons).toHaveLength(2);
      for (const hotkey of subnet.neurons)
        expect((await api.query.subtensorModule!.uids!(subnet.netuid, hotkey)).toJSON()).not.toBeNull();
    }
    const free = async (ss58: string) =>
      BigInt(((await api.query.system!.account!(ss58)).toJSON() as { data: { free: number | string } }).data.free);
    expect(await free(account(seeded, "fresh").ss58)).toBe(10_000_000_000n);
    expect(await free(account(seeded, "evm-recipient").ss58)).toBe(1_000_000_000n);
    const dave = account(seeded, "Dave").ss58;
    const [alpha] = seeded.subnets;
    expect(
      await readNativeInteger(api, "subtensorModule", "alpha", alpha!.ownerHotkey, dave, alpha!.netuid),
    ).toBeGreaterThan(0n);
  });

  it("names the call that failed and why", async () => {
    const { api } = chain;
    const keyring = await nativeKeyring();
    const [alpha] = seeded.subnets;
    const tx = nativeTx(api, "subtensorModule", "removeStake")(alpha!.ownerHotkey, alpha!.netuid, 10n ** 18n);
    const sent = sendNativeCalls(
      chain,
      [{ label: "too much unstaked", tx, signer: nativeDevPair(keyring, "Ferdie") }],
      { buildBlock: () => node.newBlocks(1) },
    );
    await expect(sent).rejects.toThrow(NativeCallError);
    await expect(sent).rejects.toThrow(
      /too much unstaked \(subtensorModule\.removeStake\) failed in block #\d+: subtensorModule\.\w+/,
    );
  });
});
