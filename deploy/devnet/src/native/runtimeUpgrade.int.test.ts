import { appendFileSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { type RunningChopsticks, startChopsticks, tempDir } from "@platform/testing";
import { ApiPromise, WsProvider } from "@polkadot/api";
import { Keyring } from "@polkadot/keyring";
import type { KeyringPair } from "@polkadot/keyring/types";
import { cryptoWaitReady } from "@polkadot/util-crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ChainSpecChecksumError, subtensorChainSpec } from "./chainSpec.js";
import { secondRuntime, upgradeRuntime } from "./runtimeUpgrade.js";

type Registry = ApiPromise["registry"];
type DecoratedEvent = NonNullable<NonNullable<ApiPromise["events"][string]>[string]>;
/** A decoded event (polkadot-js has no typings for Subtensor's pallets). */
type Event = Parameters<DecoratedEvent["is"]>[0] & {
  section: string;
  method: string;
  index: { toHex(): string };
  data: { toString(): string }[];
};

/** The event `section.method` as one runtime's metadata defines it. */
function eventOf(at: { events: ApiPromise["events"] }, section: string, method: string): DecoratedEvent {
  const event = at.events[section]?.[method];
  if (event === undefined) throw new Error(`no event ${section}.${method} in this runtime`);
  return event;
}

const BOB = "5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty";

/** The call names of one pallet in a runtime's metadata. */
function callNames(registry: Registry, pallet: string): string[] {
  const calls = registry.metadata.pallets.find((entry) => entry.name.eq(pallet))?.calls;
  if (calls === undefined || calls.isNone) return [];
  return registry.lookup
    .getSiType(calls.unwrap().type)
    .def.asVariant.variants.map((variant) => variant.name.toString());
}

describe("the second Subtensor runtime", () => {
  it("passes its checksum, and a changed copy does not", () => {
    const runtime = secondRuntime();
    expect(runtime).toMatchObject({ specName: "node-subtensor", specVersion: 204 });
    expect(runtime.code.startsWith("0x52bc537646db8e05")).toBe(true);
    const copy = join(tempDir("second-runtime").path, "runtime.wasm");
    copyFileSync(runtime.path, copy);
    expect(secondRuntime(copy).code).toBe(runtime.code);
    appendFileSync(copy, "\0");
    expect(() => secondRuntime(copy)).toThrow(ChainSpecChecksumError);
  });

  describe("replacing spec 218 on one chopsticks chain, and back", () => {
    let node: RunningChopsticks | undefined;
    let api: ApiPromise | undefined;
    let alice: KeyringPair;
    beforeAll(async () => {
      await cryptoWaitReady();
      alice = new Keyring({ type: "sr25519", ss58Format: 42 }).addFromUri("//Alice");
      node = await startChopsticks({
        genesis: subtensorChainSpec(),
        logFile: join(tempDir("chopsticks").path, "node.log"),
      });
      await node.request("dev_setStorage", [
        {
          System: { Account: [[[alice.address], { providers: 1, data: { free: "1000000000000000" } }]] },
          Sudo: { Key: alice.address },
        },
      ]);
      api = await ApiPromise.create({ provider: new WsProvider(node.rpcUrl), noInitWarn: true });
    });
    afterAll(async () => {
      await api?.disconnect();
      await node?.stop();
    });

    /** A block with a transfer to Bob and a sudo call that emits SubtensorModule.NetworkMaxStakeSet. */
    async function blockWithActivity(amount: bigint, maxStake: bigint): Promise<string> {
      // Sign with the running runtime's version: the client learns of a new runtime by subscription.
      const running = (await node!.request<{ specVersion: number }>("state_getRuntimeVersion")).specVersion;
      await vi.waitFor(() => expect(api!.runtimeVersion.specVersion.toNumber()).toBe(running), {
        timeout: 10_000,
        interval: 100,
      });
      const tx = api!.tx;
      const nonce = (await api!.rpc.system.accountNextIndex(alice.address)).toNumber();
      await tx["balances"]!["transferKeepAlive"]!(BOB, amount).signAndSend(alice, { nonce });
      await tx["sudo"]!["sudo"]!(tx["adminUtils"]!["sudoSetNetworkMaxStake"]!(1, maxStake)).signAndSend(alice, {
        nonce: nonce + 1,
      });
      return node!.newBlocks(1);
    }

    /** A block's events, read and decoded with the metadata of the runtime that built the block. */
    async function eventsAt(hash: string) {
      const at = await api!.at(hash);
      const records = [...((await at.query["system"]!["events"]!()) as unknown as Iterable<{ event: Event }>)].map(
        (record) => record.event,
      );
      return {
        at,
        specVersion: at.runtimeVersion.specVersion.toNumber(),
        names: records.map((event) => `${event.section}.${event.method}`),
        find: (section: string, method: string) =>
          records.find((event) => event.section === section && event.method === method),
      };
    }

    it("builds blocks under both runtimes, and each block's events decode with its own metadata", async () => {
      const beforeHash = await blockWithActivity(1_000_000_000n, 111n);
      const code218 = await node!.request<string>("state_getStorage", ["0x3a636f6465", beforeHash]);

      // frame_system refuses a lower spec version through the checked call.
      await expect(upgradeRuntime(node!, secondRuntime().code)).rejects.toThrow(
        /not replaced .*: system\.SpecVersionNeedsToIncrease$/,
      );
      const down = await upgradeRuntime(node!, secondRuntime().code, { withoutChecks: true });
      expect(down).toMatchObject({ from: 218, to: 204 });
      const afterHash = await blockWithActivity(2_000_000_000n, 222n);

      // A checked upgrade (setCode: the spec version must increase) from 204 back to 218.
      const up = await upgradeRuntime(node!, code218);
      expect(up).toMatchObject({ from: 204, to: 218 });
      const againHash = await blockWithActivity(3_000_000_000n, 333n);

      const version = (hash: string) =>
        node!.request<{ specName: string; specVersion: number }>("state_getRuntimeVersion", [hash]);
      expect(await version(beforeHash)).toMatchObject({ specName: "node-subtensor", specVersion: 218 });
      expect(await version(afterHash)).toMatchObject({ specName: "node-subtensor", specVersion: 204 });
      expect(await version(againHash)).toMatchObject({ specName: "node-subtensor", specVersion: 218 });
      const metadata = (hash: string) => node!.request<string>("state_getMetadata", [hash]);
      expect(await metadata(afterHash)).not.toBe(await metadata(beforeHash));
      expect(await metadata(againHash)).toBe(await metadata(beforeHash));

      const before = await eventsAt(beforeHash);
      const after = await eventsAt(afterHash);
      const again = await eventsAt(againHash);
      // The block carrying setCode ran under the old runtime: its events decode with the parent's metadata.
      const downBlock = await eventsAt(down.blockHash);
      expect(downBlock.specVersion).toBe(218);
      expect(downBlock.names).toContain("system.CodeUpdated");
      expect((await eventsAt(up.blockHash)).specVersion).toBe(204);

      for (const [events, spec, amount, maxStake] of [
        [before, 218, "1000000000", "111"],
        [after, 204, "2000000000", "222"],
        [again, 218, "3000000000", "333"],
      ] as const) {
        expect(events.specVersion).toBe(spec);
        expect(events.find("balances", "Transfer")?.data.map(String)).toEqual([alice.address, BOB, amount]);
        expect(events.find("subtensorModule", "NetworkMaxStakeSet")?.data.map(String)).toEqual(["1", maxStake]);
        expect(events.names).toContain("sudo.Sudid");
      }

      // The same event sits at another index in each runtime (SubtensorModule is pallet 7): judged by
      // spec 218's metadata, spec 204's NetworkMaxStakeSet would be ChainIdentitySet.
      const event218 = before.find("subtensorModule", "NetworkMaxStakeSet")!;
      const event204 = after.find("subtensorModule", "NetworkMaxStakeSet")!;
      expect([event218.index.toHex(), event204.index.toHex()]).toEqual(["0x0745", "0x0746"]);
      expect(eventOf(after.at, "subtensorModule", "NetworkMaxStakeSet").is(event204)).toBe(true);
      expect(eventOf(before.at, "subtensorModule", "NetworkMaxStakeSet").is(event204)).toBe(false);
      expect(eventOf(before.at, "subtensorModule", "ChainIdentitySet").is(event204)).toBe(true);

      // Storage and calls differ too.
      const storage = (at: typeof before.at) => Object.keys(at.query["subtensorModule"] ?? {});
      expect(storage(before.at)).toContain("totalHotkeyShares");
      expect(storage(after.at)).not.toContain("totalHotkeyShares");
      expect(storage(after.at)).toContain("totalColdkeyAlpha");
      expect(storage(before.at)).not.toContain("totalColdkeyAlpha");
      expect(callNames(before.at.registry, "SubtensorModule")).toContain("set_tao_weights");
      expect(callNames(before.at.registry, "SubtensorModule")).not.toContain("set_root_weights");
      expect(callNames(after.at.registry, "SubtensorModule")).toContain("set_root_weights");
      expect(callNames(after.at.registry, "SubtensorModule")).not.toContain("set_tao_weights");
    }, 180_000);
  });
});
