import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type RunningChopsticks, startChopsticks, tempDir } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subtensorChainSpec } from "./chainSpec.js";
import {
  connectNativeChain,
  type NativeChain,
  nativeDevPair,
  nativeKeyring,
  nativeTx,
  readNativeInteger,
} from "./nativeChain.js";
import { blockEvents, eventsOfExtrinsic, findEvents } from "./nativeEvents.js";
import { headNumber, NativeCallError, sendNativeCalls } from "./nativeSubmit.js";
import { seededSubtensorCacheFile, startSeededSubtensor } from "./seededSubtensor.js";
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
  delegate: "subtensorModule.DelegateAdded",
  children: "subtensorModule.SetChildren",
  identity: "subtensorModule.ChainIdentitySet",
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

let seeded: SeededNativeNetwork;

describe("seedNativeNetwork", () => {
  it("seeds every kind of activity with real extrinsics in a few blocks built on demand", async () => {
    const started = Date.now();
    seeded = await seedNativeNetwork({ rpcUrl: node.rpcUrl, buildBlock: () => node.newBlocks(1) });
    console.info(`seeded in ${Date.now() - started} ms, blocks #${seeded.blocks.first}..#${seeded.blocks.last}`);
    expect(seeded.blocks.last - seeded.blocks.first + 1).toBeLessThanOrEqual(10);
    expect(seeded.netuids).toHaveLength(3);
    expect(new Set(seeded.netuids).size).toBe(3);
    for (const kind of NATIVE_ACTIVITY_KINDS) expect(seeded.activity[kind].length, kind).toBeGreaterThan(0);
    expect(seeded.activity.stakeAdd.map((entry) => entry.label).join()).toMatch(/subnet \d+.*subnet \d+/);
    expect(JSON.parse(JSON.stringify(seeded))).toEqual(seeded);
  }, 180_000);

  it("is served by another node from its exported blocks (the stack's and the tests' seed cache) as the runtime built it", async () => {
    const blocks = await node.exportBlocks();
    expect(blocks.map((block) => block.number)).toEqual(
      Array.from({ length: seeded.blocks.last }, (_, index) => index + 1),
    );
    const cacheDir = tempDir("seed-cache").path;
    const cacheFile = seededSubtensorCacheFile({ cacheDir });
    mkdirSync(dirname(cacheFile), { recursive: true });
    writeFileSync(cacheFile, JSON.stringify({ seeded, blocks }));
    const started = Date.now();
    const replay = await startSeededSubtensor({ cacheDir, logFile: join(cacheDir, "replay.log") });
    try {
      console.info(`replayed ${blocks.length} blocks in ${Date.now() - started} ms`);
      expect(replay.replayed).toBe(true);
      expect(replay.seeded).toEqual(seeded);
      const hashes = (target: RunningChopsticks) =>
        Promise.all(blocks.map((block) => target.request<string>("chain_getBlockHash", [block.number])));
      expect(await hashes(replay.node)).toEqual(await hashes(node));
      const eventsKey = chain.api.query.system!.events!.key();
      const lastHash = blocks.at(-1)!.hash;
      expect(await replay.node.request("state_getStorage", [eventsKey, lastHash])).toEqual(
        await node.request("state_getStorage", [eventsKey, lastHash]),
      );
      // A block built on each: its state root covers the whole state, so equal hashes mean equal state.
      expect(await replay.node.newBlocks(1)).toBe(await node.newBlocks(1));
    } finally {
      await replay.node.stop();
    }
  }, 120_000);

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
      expect(subnet.validators).toHaveLength(3);
      expect(subnet.miners).toHaveLength(3);
      expect(subnet.child).toBeDefined();
      expect(subnet.neurons).toHaveLength(6);
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

/** Storage values of every dynamic subnet at the head, as the runtime keeps them. */
async function marketAtHead(api: NativeChain["api"]) {
  const query = api.query.subtensorModule!;
  const netuids = ((await query.networksAdded!.keys()) as unknown as { args: [{ toString(): string }] }[])
    .map((key) => Number(key.args[0].toString()))
    .sort((a, b) => a - b);
  const big = (value: { toString(): string }) => BigInt(value.toString());
  const entries = async (item: string) =>
    ((await query[item]!.entries()) as unknown as [{ args: { toString(): string }[] }, { toString(): string }][]).map(
      ([key, value]) => ({ args: key.args.map((arg) => arg.toString()), value: big(value) }),
    );
  const [hotkeyAlpha, hotkeyShares, shares] = await Promise.all([
    entries("totalHotkeyAlpha"),
    entries("totalHotkeyShares"),
    entries("alpha"),
  ]);
  const subnets = [];
  for (const netuid of netuids) {
    if (big(await query.subnetMechanism!(netuid)) !== 1n) continue;
    const [tao, alphaIn, alphaOut] = await Promise.all(
      ["subnetTAO", "subnetAlphaIn", "subnetAlphaOut"].map(async (item) => big(await query[item]!(netuid))),
    );
    const onSubnet = <T extends { args: string[] }>(list: T[], at: number) =>
      list.filter((entry) => entry.args[at] === String(netuid));
    subnets.push({
      netuid,
      tao: tao!,
      alphaIn: alphaIn!,
      alphaOut: alphaOut!,
      holdersAlpha: onSubnet(hotkeyAlpha, 1).reduce((sum, entry) => sum + entry.value, 0n),
      // Every hotkey holding shares on the subnet, with its pool's total (0 where none is stored).
      pools: [...new Set(onSubnet(shares, 2).map((share) => share.args[0]!))].map((hotkey) => ({
        hotkey,
        total: onSubnet(hotkeyShares, 1).find((pool) => pool.args[0] === hotkey)?.value ?? 0n,
        held: onSubnet(shares, 2).filter((share) => share.args[0] === hotkey),
      })),
    });
  }
  return subnets;
}

describe("the seeded market", () => {
  it("has deep pools at prices between 0.001 and 1 TAO per alpha, and no more alpha held than outstanding", async () => {
    const market = await marketAtHead(chain.api);
    expect(market.map((subnet) => subnet.netuid)).toEqual([1, ...seeded.netuids]);
    for (const subnet of market) {
      expect(subnet.tao, `subnet ${subnet.netuid} TAO`).toBeGreaterThanOrEqual(1_000n * 10n ** 9n);
      const price = Number(subnet.tao) / Number(subnet.alphaIn);
      expect(price, `subnet ${subnet.netuid} price`).toBeGreaterThanOrEqual(0.001);
      expect(price, `subnet ${subnet.netuid} price`).toBeLessThanOrEqual(1);
      expect(subnet.holdersAlpha, `subnet ${subnet.netuid} holders' alpha`).toBeLessThanOrEqual(subnet.alphaOut);
      for (const pool of subnet.pools) {
        const held = pool.held.reduce((sum, share) => sum + share.value, 0n);
        expect(held, `subnet ${subnet.netuid} hotkey ${pool.hotkey} shares`).toBe(pool.total);
        for (const share of pool.held) expect(share.value).toBeLessThanOrEqual(pool.total);
      }
    }
  });

  it("has validators staked by several coldkeys, delegates with identities, and a child hotkey per seeded subnet", async () => {
    const query = chain.api.query.subtensorModule!;
    for (const subnet of [...seeded.subnets, seeded.genesisSubnet]) {
      for (const hotkey of subnet.validators) {
        expect((await query.delegates!(hotkey)).toString(), `${hotkey} is a delegate`).not.toBe("0");
        const stakers = ((await query.alpha!.keys(hotkey)) as unknown as { args: { toString(): string }[] }[]).filter(
          (key) => key.args[2]!.toString() === String(subnet.netuid),
        );
        expect(stakers.length, `stakers of ${hotkey}`).toBeGreaterThanOrEqual(1);
      }
      const coldkeys = new Set<string>();
      for (const hotkey of subnet.validators)
        for (const key of (await query.alpha!.keys(hotkey)) as unknown as { args: { toString(): string }[] }[])
          if (key.args[2]!.toString() === String(subnet.netuid)) coldkeys.add(key.args[1]!.toString());
      expect(coldkeys.size, `coldkeys staking on subnet ${subnet.netuid}`).toBeGreaterThanOrEqual(3);
      if (subnet !== seeded.genesisSubnet) {
        const children = (await query.childKeys!(subnet.ownerHotkey, subnet.netuid)).toJSON() as [number, string][];
        expect(children.map(([, child]) => child)).toEqual([
          chain.api.createType("AccountId32", subnet.child).toString(),
        ]);
      }
    }
    const identity = (await query.identities!(account(seeded, "Alice").ss58)).toHuman() as { name: string } | null;
    expect(identity?.name).toBe("Alice Validation");
  });

  it("sells alpha for 5 TAO to a new account on every subnet", async () => {
    const { api } = chain;
    const keyring = await nativeKeyring();
    const newcomer = keyring.addFromUri(`//newcomer-${Date.now()}`);
    await sendNativeCalls(
      chain,
      [
        {
          label: "fund the newcomer",
          tx: nativeTx(api, "balances", "transferKeepAlive")(newcomer.address, 100n * 10n ** 9n),
          signer: nativeDevPair(keyring, "Alice"),
        },
      ],
      { buildBlock: () => node.newBlocks(1) },
    );
    const stakes = [...seeded.subnets, seeded.genesisSubnet].map((subnet) => ({
      label: `the newcomer stakes 5 TAO on subnet ${subnet.netuid}`,
      tx: nativeTx(api, "subtensorModule", "addStake")(subnet.validators[0]!, subnet.netuid, 5n * 10n ** 9n),
      signer: newcomer,
    }));
    // Also on genesis' own owner hotkey, whose pool genesis left without a share total.
    stakes.push({
      label: "the newcomer stakes 5 TAO on genesis' owner hotkey",
      tx: nativeTx(api, "subtensorModule", "addStake")(seeded.genesisSubnet.ownerHotkey, 1, 5n * 10n ** 9n),
      signer: newcomer,
    });
    const landed = await sendNativeCalls(chain, stakes, { buildBlock: () => node.newBlocks(1) });
    for (const [index, call] of landed.entries()) {
      const added = findEvents(call.events, "subtensorModule.StakeAdded")[0]!;
      // StakeAdded(coldkey, hotkey, tao, alpha, netuid): 5 TAO at 0.001–1 TAO per alpha buys 5–5,000 alpha.
      expect(BigInt(added.data[3]!.toString()), stakes[index]!.label).toBeGreaterThan(4n * 10n ** 9n);
    }
  }, 60_000);

  it("steps each subnet exactly when blocks_until_next_epoch is 0, over two tempos", async () => {
    const { api } = chain;
    const query = api.query.subtensorModule!;
    const netuids = [0, seeded.genesisSubnet.netuid, ...seeded.netuids];
    for (const netuid of netuids) expect(Number((await query.tempo!(netuid)).toString())).toBe(seeded.tempo);
    const lastStep = async () =>
      Promise.all(netuids.map(async (netuid) => Number((await query.lastMechansimStepBlock!(netuid)).toString())));
    // The runtime's own rule (run_coinbase, should_run_epoch): a subnet steps in block b when
    // tempo - (b + netuid + 1) % (tempo + 1) is 0.
    const untilEpoch = (netuid: number, block: number) => seeded.tempo - ((block + netuid + 1) % (seeded.tempo + 1));
    let before = await lastStep();
    const steps = new Map(netuids.map((netuid) => [netuid, 0]));
    for (let built = 0; built < 2 * (seeded.tempo + 1); built++) {
      await node.newBlocks(1);
      const block = await headNumber(api);
      const after = await lastStep();
      for (const [index, netuid] of netuids.entries()) {
        const due = untilEpoch(netuid, block) === 0;
        expect(after[index], `subnet ${netuid} at block ${block}`).toBe(due ? block : before[index]);
        if (due) steps.set(netuid, steps.get(netuid)! + 1);
      }
      before = after;
    }
    for (const netuid of netuids) expect(steps.get(netuid), `steps of subnet ${netuid}`).toBe(2);
    // Epochs paid out: positions grew, and still no more alpha is held than is outstanding.
    for (const subnet of await marketAtHead(api)) {
      expect(subnet.holdersAlpha, `subnet ${subnet.netuid} after two epochs`).toBeLessThanOrEqual(subnet.alphaOut);
      for (const pool of subnet.pools)
        expect(
          pool.held.reduce((sum, share) => sum + share.value, 0n),
          `subnet ${subnet.netuid} hotkey ${pool.hotkey}: shares against the pool's total`,
        ).toBe(pool.total);
    }
  }, 300_000);
});
