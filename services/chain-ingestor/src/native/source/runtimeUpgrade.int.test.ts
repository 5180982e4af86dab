import { join } from "node:path";
import { Writable } from "node:stream";
import { createKafkaClient, type Kafka } from "@platform/bus";
import { substrateNetworkSchema } from "@platform/chain";
import { secondRuntime, subtensorChainSpec, upgradeRuntime } from "@platform/devnet";
import { createLogger } from "@platform/log";
import { TransactionType } from "@platform/proto/common/v1/network";
import type { AccountActivity } from "@platform/proto/events/v1/chain_network";
import { CheckpointEvent } from "@platform/proto/events/v1/ingestor_checkpoints";
import { decodePayload, TOPICS } from "@platform/proto/topics";
import {
  type RunningChopsticks,
  type RunningKafka,
  startChopsticks,
  startKafka,
  tempDir,
  waitFor,
} from "@platform/testing";
import { ApiPromise, WsProvider } from "@polkadot/api";
import { Keyring } from "@polkadot/keyring";
import type { KeyringPair } from "@polkadot/keyring/types";
import { cryptoWaitReady } from "@polkadot/util-crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTopic } from "../../../test/devnetHarness.js";
import { type NativeIngestor, startNativeIngestor } from "./ingestor.js";

/*
 * A runtime upgrade mid-stream, on the real runtime: the chain runs spec 218, is switched to spec
 * 204 (whose SubtensorModule events sit at other indices: StakeMoved is 73 in 218 and 74 in 204)
 * and back to 218, with a stake move and a transfer under each. The native source runs throughout;
 * every block must be decoded with the metadata of the runtime that built it.
 */

const dir = tempDir("native-upgrade");
const log = createLogger({
  service: "native-upgrade-test",
  level: (process.env.TEST_LOG_LEVEL ?? "warn") as "warn",
  destination: process.env.TEST_LOG_LEVEL ? process.stderr : new Writable({ write: (_c, _e, callback) => callback() }),
});
const CHAIN_ID = 945;

let node: RunningChopsticks;
let kafkaServer: RunningKafka;
let kafka: Kafka;
let ingestor: NativeIngestor | undefined;
let alice: KeyringPair;
const keys = () => new Keyring({ type: "sr25519", ss58Format: 42 });

beforeAll(async () => {
  await cryptoWaitReady();
  alice = keys().addFromUri("//Alice");
  [node, kafkaServer] = await Promise.all([
    startChopsticks({ genesis: subtensorChainSpec(), logFile: join(dir.path, "chopsticks.log") }),
    startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") }),
  ]);
  await node.request("dev_setStorage", [
    {
      System: { Account: [[[alice.address], { providers: 1, data: { free: "1000000000000000" } }]] },
      Sudo: { Key: alice.address },
    },
  ]);
  kafka = createKafkaClient({ brokers: kafkaServer.brokers, clientId: "native-upgrade-test", logger: log });
  ingestor = startNativeIngestor({
    kafka,
    network: substrateNetworkSchema.parse({
      name: "bittensor",
      chainId: CHAIN_ID,
      rpcUrl: node.rpcUrl,
      blockTimeMs: 1_000,
      finality: { safeDepth: 1, finalizedDepth: 3 },
    }),
    pollIntervalMs: 100,
    maxBlocksPerBatch: 10,
    replicationFactor: 1,
    log,
    onFenced: () => undefined,
  });
}, 180_000);

afterAll(async () => {
  await ingestor?.stop();
  await Promise.all([node?.stop(), kafkaServer?.stop()]);
  dir.remove();
}, 60_000);

/** Sends calls signed by Alice (consecutive nonces) through a fresh client of the running runtime, then builds a block. */
async function inBlock(
  calls: (api: ApiPromise) => { signAndSend(pair: KeyringPair, options: { nonce: number }): Promise<unknown> }[],
): Promise<string> {
  const api = await ApiPromise.create({ provider: new WsProvider(node.rpcUrl), noInitWarn: true });
  try {
    let nonce = Number((await api.rpc.system.accountNextIndex(alice.address)).toString());
    for (const call of calls(api)) await call.signAndSend(alice, { nonce: nonce++ });
    return await node.newBlocks(1);
  } finally {
    await api.disconnect();
  }
}

async function specAt(blockHash: string): Promise<number> {
  const header = await node.request<{ parentHash: string }>("chain_getHeader", [blockHash]);
  return (await node.request<{ specVersion: number }>("state_getRuntimeVersion", [header.parentHash])).specVersion;
}

async function activitiesUpTo(blockHash: string): Promise<AccountActivity[]> {
  await waitFor(
    async () =>
      (await readTopic(kafka, TOPICS.ingestorCheckpoints.name))
        .map((record) => CheckpointEvent.decode(record.value!).event!.value)
        .some(
          (checkpoint) =>
            checkpoint.sourceId === `${CHAIN_ID}:native` &&
            checkpoint.recentBlocks.some((block) => block.blockHash === blockHash),
        ),
    { what: `block ${blockHash} published`, timeoutMs: 60_000, intervalMs: 200 },
  );
  return (await readTopic(kafka, TOPICS.chainNetwork.name)).flatMap((record) => {
    const event = decodePayload(TOPICS.chainNetwork, record.value!).event;
    return event?.$case === "accountActivity" ? [event.value] : [];
  });
}

describe("the native source across a runtime upgrade", () => {
  it("decodes every block with the metadata of the runtime that built it (218 → 204 → 218)", async () => {
    const [bob, charlie, dave] = ["//Bob", "//Charlie", "//Dave"].map((uri) => keys().addFromUri(uri).address) as [
      string,
      string,
      string,
    ];
    const tx = (api: ApiPromise) =>
      api.tx as unknown as Record<
        string,
        Record<
          string,
          (...args: unknown[]) => { signAndSend(pair: KeyringPair, options: { nonce: number }): Promise<unknown> }
        >
      >;
    await inBlock((api) => [
      tx(api)["sudo"]!["sudo"]!(tx(api)["adminUtils"]!["sudoSetNetworkRateLimit"]!(0)),
      tx(api)["subtensorModule"]!["registerNetwork"]!(bob, 1),
    ]);
    const netuid = 2;
    // A new pool holds 1 rao against 1 nano-alpha, where a stake buys nothing; give it the depth a
    // network's history would (1,000 TAO at 0.1 TAO per alpha), as the devnet's seed does.
    await node.request("dev_setStorage", [
      { SubtensorModule: { SubnetTAO: [[[netuid], "1000000000000"]], SubnetAlphaIn: [[[netuid], "10000000000000"]] } },
    ]);
    await inBlock((api) => [
      tx(api)["subtensorModule"]!["addStake"]!(bob, netuid, 100_000_000_000n),
      tx(api)["subtensorModule"]!["burnedRegister"]!(netuid, charlie),
    ]);

    const moveAndTransfer = (from: string, to: string, recipient: string, alpha: bigint) =>
      inBlock((api) => [
        tx(api)["subtensorModule"]!["moveStake"]!(from, to, netuid, netuid, alpha),
        tx(api)["balances"]!["transferKeepAlive"]!(recipient, 1_000_000_000n),
      ]);
    // Spec 204 refuses to move all of a position (NotEnoughStakeToWithdraw), so it moves back only part.
    const under218 = await moveAndTransfer(bob, charlie, dave, 1_000_000n);
    await upgradeRuntime(node, secondRuntime().code, { withoutChecks: true });
    const under204 = await moveAndTransfer(charlie, bob, dave, 1_000n);
    await upgradeRuntime(node, (await node.request<string>("state_getStorage", ["0x3a636f6465", under218]))!);
    const back218 = await moveAndTransfer(bob, charlie, dave, 1_000n);
    expect([await specAt(under218), await specAt(under204), await specAt(back218)]).toEqual([218, 204, 218]);
    // Two metadata versions, not one runtime under two numbers.
    const metadataAt = (hash: string) => node.request<string>("state_getMetadata", [hash]);
    expect(await metadataAt(under204)).not.toBe(await metadataAt(under218));

    const activities = await activitiesUpTo(back218);
    for (const blockHash of [under218, under204, back218]) {
      const inBlock = activities.filter(
        (activity) => activity.ref!.blockHash === blockHash && activity.direction !== 1,
      );
      expect(
        inBlock.map((activity) => [activity.eventName, activity.type]),
        `block ${blockHash}`,
      ).toEqual([
        ["SubtensorModule.StakeMoved", TransactionType.TRANSACTION_TYPE_STAKE_MOVE],
        ["Balances.Transfer", TransactionType.TRANSACTION_TYPE_TRANSFER],
      ]);
    }

    // Neither runtime keeps a `TokenSymbol` (spec 204, and the spec-218 build whose epochs follow
    // Tempo): each block is read whole, every subnet is published, and the symbol is absent, not
    // dropped with its subnet and not an empty text. A symbol that is there: subnetDetails.test.ts.
    const records = (await readTopic(kafka, TOPICS.chainNetwork.name)).map(
      (record) => decodePayload(TOPICS.chainNetwork, record.value!).event,
    );
    const subnetsAt = (blockHash: string) =>
      records
        .flatMap((event) =>
          event?.$case === "subnetSnapshot" && event.value.ref!.blockHash === blockHash ? [event.value] : [],
        )
        .sort((a, b) => a.netuid - b.netuid);
    const emissionsAt = (blockHash: string) =>
      records.filter((event) => event?.$case === "emissionSnapshot" && event.value.ref!.blockHash === blockHash).length;
    expect(subnetsAt(under204).map((subnet) => [subnet.netuid, subnet.symbol])).toEqual([
      [0, undefined],
      [1, undefined],
      [netuid, undefined],
    ]);
    expect(subnetsAt(back218).map((subnet) => [subnet.netuid, subnet.symbol])).toEqual([
      [0, undefined],
      [1, undefined],
      [netuid, undefined],
    ]);
    expect([emissionsAt(under218), emissionsAt(under204), emissionsAt(back218)]).toEqual([3, 3, 3]);
  }, 180_000);
});
