import type { SubstrateNetwork } from "@platform/chain";
import type { ChainRef } from "@platform/proto/common/v1/common";
import type { AccountBalance, PositionReward } from "@platform/proto/events/v1/chain_network";
import { TOPICS } from "@platform/proto/topics";
import { accountFromPublicKey, ROOT_NETUID } from "@platform/subtensor";
import type { Hex } from "viem";
import type { BlockSource } from "../../follower/blockFollower.js";
import type { BlockHeader, BlockRef, RecoveredWindow, WindowBlock } from "../../follower/blocks.js";
import { decodeNativeActivities } from "../facts/activities.js";
import { balanceSnapshotRecords } from "../facts/balanceSnapshots.js";
import { chainedByBlock } from "../facts/chainedByBlock.js";
import { type EmissionDetails, readEmissions } from "../facts/emissions.js";
import {
  changedColdkeys,
  coldkeysOn,
  type HolderState,
  holderChangesOf,
  holderRecords,
  nextHolders,
  positionsOf,
  readAllHolders,
} from "../facts/holders.js";
import { nativePoolPrice, nativePoolRecords, subnetRemovedRecords, subnetsByBlock } from "../facts/pools.js";
import { decideRewards, stakeFlowsOf } from "../facts/rewards.js";
import { accountsCounter, blockContentCounts, nativeStatsRecord } from "../facts/stats.js";
import { subnetChangesOf } from "../facts/subnetChanges.js";
import { nextSubnets, readAllSubnets, type SubnetsState, subnetIndexes, subnetRecords } from "../facts/subnets.js";
import type { NativeChainReader } from "../node/chainReader.js";
import type { RuntimeAt } from "../node/runtimeAt.js";
import type { NativeBlockFacts, RuntimeEvent } from "../node/runtimeEvent.js";
import { activityRecords, touchedAccounts } from "../records/activityEvents.js";
import { blockSeenRecords } from "../records/blockSeen.js";
import type { NetworkRecord } from "../records/networkRecord.js";
import { adjustmentsAt, epochsAt } from "./blockSteps.js";
import { finalizedThrough, nativeFinality } from "./finality.js";

export interface NativeBlockSourceOptions {
  reader: NativeChainReader;
  network: Pick<SubstrateNetwork, "chainId" | "finality">;
  /** The finalized head as the header reader last saw it. */
  finalizedHead(): bigint | undefined;
  /** chain.network.v1's partition count, for the BlockSeen records; the topic catalog's by default. */
  networkPartitions?: number;
  /** Blocks read at once within a range; 8 by default (the node answers them side by side). */
  concurrency?: number;
  /**
   * The accounts count and the subnet set are kept from events, and read in full from storage every
   * this many blocks (7,200: a day of 12 s blocks).
   */
  rescanEveryBlocks?: number;
  /** Positions per HolderPositions record (2,000 by default: about 200 KB). */
  holderChunkSize?: number;
  /**
   * Every this many blocks a subnet's holders go out whole, not as a delta (facts/holders.ts):
   * 7,200 by default (a day), well inside chain.network.v1's retention, so a consumer that lost
   * its set (or reads the topic from its start) has one within a day.
   */
  holderKeyframeBlocks?: number;
}

/**
 * Blocks whose holder and subnet states are kept: each block's state copies the subnets it changed,
 * so at mainnet size a thousand blocks of them would hold gigabytes. 32 blocks cover the follower's
 * window (the finalized depth plus 16: a deeper fork stops the source) with the blocks read ahead;
 * deeper, the block is read in full. (64 held ~40 MB more of the source's heap on the scale state
 * at Finney's epoch cadence: each epoch block copies root's 4,900 positions and its own subnet's.)
 */
const LARGE_STATES_KEPT = 32;

/** What the chained snapshots read from a block: its runtime, its subnets, its epochs and what its events say. */
interface BlockChanges {
  runtime: RuntimeAt;
  netuids: readonly number[];
  epochs: readonly number[];
  adjustments: readonly number[];
  emissions: ReadonlyMap<number, EmissionDetails>;
  activities: ReturnType<typeof decodeNativeActivities>;
  events: readonly RuntimeEvent[];
}

export interface NativeBlockSource extends BlockSource<NetworkRecord> {
  recoverWindow(blocks: readonly BlockRef[]): Promise<RecoveredWindow<NetworkRecord>>;
}

/**
 * Reads the native network block by block:
 * - the block's runtime events decoded into account activity (decodeNativeActivities), with the
 *   balances (`System.Account`) and alpha positions of every account they touched, at the end of
 *   the block;
 * - the same balances of the coldkeys whose stake a subnet's epoch changed without an event naming
 *   them (AccountBalanceSnapshot);
 * - every subnet's pool and emission (a handful of storage values each, so every block: they move
 *   with each block's emission, and positions are valued at their block's price);
 * - subnets the block took away (SubnetRemoved);
 * - subnet settings, metagraphs (subnets.ts) and every alpha position (holders.ts):
 *   read whole at the first block, every `rescanEveryBlocks` and under a new runtime, and between
 *   those only for the subnets the block's events, epochs and adjustments name, so they are
 *   published when they change;
 * - the network totals (stats.ts), with the block's own extrinsic and transfer counts;
 * - then one BlockSeen per partition.
 * A block is published whole or not at all: any failed read fails the range, and the follower reads
 * it again.
 */
export function nativeBlockSource(options: NativeBlockSourceOptions): NativeBlockSource {
  const { reader } = options;
  const concurrency = options.concurrency ?? 8;
  const context = blockReadContext(options);

  return {
    async readBlocks(headers, latest) {
      const records = await readAll(context, concurrency, headers, latest);
      return new Map(headers.map((header, index) => [header.hash, records[index]!] as const));
    },

    async recoverWindow(blocks) {
      const { best } = await reader.heads();
      const window: WindowBlock<NetworkRecord>[] = [];
      const unknown: BlockRef[] = [];
      for (const block of blocks) {
        const header = await reader.headerOf(block.hash);
        if (header === undefined) {
          unknown.push(block);
          window.push({ block, events: [] });
          continue;
        }
        window.push({ block, events: await readBlock(context, header, best) });
      }
      return { window, unknown };
    },
  };
}

/** The states kept from block to block (chainedByBlock) with their inputs. */
type HolderStates = ReturnType<
  typeof chainedByBlock<HolderState | undefined, BlockChanges & { subnetState: SubnetsState }>
>;
type SubnetStates = ReturnType<typeof chainedByBlock<SubnetsState, BlockChanges>>;

/** What reading a block needs: the node, the network, and the values kept from block to block. */
interface BlockReadContext {
  reader: NativeChainReader;
  network: Pick<SubstrateNetwork, "chainId" | "finality">;
  finalizedHead(): bigint | undefined;
  seenRecords: ReturnType<typeof blockSeenRecords>;
  holderChunkSize: number;
  holderKeyframeBlocks: number;
  accounts: ReturnType<typeof accountsCounter>;
  subnets: ReturnType<typeof subnetsByBlock>;
  holders: HolderStates;
  subnetStates: SubnetStates;
}

function blockReadContext(options: NativeBlockSourceOptions): BlockReadContext {
  const { reader, network } = options;
  const seenRecords = blockSeenRecords(options.networkPartitions ?? TOPICS.chainNetwork.partitions);
  const rescanEveryBlocks = options.rescanEveryBlocks ?? 7_200;
  const accounts = accountsCounter({
    countAt: (hash) => reader.accountsCountAt(hash),
    recountEveryBlocks: rescanEveryBlocks,
  });
  const subnets = subnetsByBlock({ netuidsAt: (hash) => reader.netuidsAt(hash), rescanEveryBlocks });
  const holderChunkSize = options.holderChunkSize ?? 2_000;
  // Block 1 as well: it runs the runtime's migrations when genesis leaves `LastRuntimeUpgrade`
  // unset (frame_executive), which write storage without an event. The seeded devnet's block 1
  // sets `TotalHotkeyShares` of genesis pools that way.
  const rescanDue = (header: BlockHeader) => header.number === 1n || header.number % BigInt(rescanEveryBlocks) === 0n;
  return {
    reader,
    network,
    finalizedHead: () => options.finalizedHead(),
    seenRecords,
    holderChunkSize,
    holderKeyframeBlocks: options.holderKeyframeBlocks ?? 7_200,
    accounts,
    subnets,
    holders: chainedHolderStates(rescanDue),
    subnetStates: chainedSubnetStates(rescanDue),
  };
}

function chainedHolderStates(rescanDue: (header: BlockHeader) => boolean): HolderStates {
  return chainedByBlock<HolderState | undefined, BlockChanges & { subnetState: SubnetsState }>({
    full: async (_header, input) => {
      const { runtime, netuids } = await input;
      return readAllHolders(runtime, netuids);
    },
    next: (parent, input) =>
      parent === undefined
        ? undefined
        : nextHolders(
            input.runtime,
            parent,
            holderChangesOf({
              stakeTouches: input.activities.flatMap((activity) => activity.stakeTouches),
              events: input.events,
              epochs: input.epochs,
              netuids: input.netuids,
              registered: subnetIndexes(input.subnetState).hotkeysOf,
            }),
          ),
    fullAt: rescanDue,
    keep: LARGE_STATES_KEPT,
  });
}

function chainedSubnetStates(rescanDue: (header: BlockHeader) => boolean): SubnetStates {
  return chainedByBlock<SubnetsState, BlockChanges>({
    full: async (_header, input) => {
      const { runtime, netuids, emissions } = await input;
      return readAllSubnets(runtime, netuids, enabledOf(emissions));
    },
    next: (parent, input) =>
      nextSubnets(input.runtime, parent, {
        netuids: input.netuids,
        emissionEnabled: enabledOf(input.emissions),
        changes: subnetChangesOf({
          events: input.events,
          epochs: input.epochs,
          adjustments: input.adjustments,
          ...subnetIndexes(parent),
        }),
      }),
    fullAt: rescanDue,
    keep: LARGE_STATES_KEPT,
  });
}

function enabledOf(emissions: ReadonlyMap<number, EmissionDetails>): Map<number, boolean> {
  return new Map([...emissions].map(([netuid, emission]) => [netuid, emission.emissionEnabled]));
}

async function readAll(
  context: BlockReadContext,
  concurrency: number,
  headers: readonly BlockHeader[],
  latest: bigint,
): Promise<NetworkRecord[][]> {
  const results: NetworkRecord[][] = new Array(headers.length);
  let next = 0;
  const worker = async () => {
    while (next < headers.length) {
      const index = next++;
      results[index] = await readBlock(context, headers[index]!, latest);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, headers.length) }, worker));
  return results;
}

async function readBlock(context: BlockReadContext, header: BlockHeader, latest: bigint): Promise<NetworkRecord[]> {
  const { reader, network, accounts, subnets, holders, subnetStates } = context;
  const ref: ChainRef = {
    chainId: String(network.chainId),
    blockNumber: header.number.toString(),
    blockHash: header.hash,
    parentHash: header.parentHash,
    // The runtime's clock in milliseconds: the block's time as the chain (and its explorers) give it.
    blockTimestamp: new Date(Number(header.timestampMs ?? header.timestamp * 1_000n)).toISOString(),
    finality: nativeFinality(header.number, latest, context.finalizedHead(), network.finality),
  };
  // Taken with the ref's finality, from the same view of the heads.
  const finalized = finalizedThrough(latest, context.finalizedHead(), network.finality);
  const factsRead = reader.blockFacts(header);
  const events = factsRead.then((facts) => facts.events);
  const accountsCount = accounts.countAt(header, events);
  const netuidsRead = subnets.at(header, events);
  // The genesis block has no parent to compare with.
  const netuidsBefore = header.number === 0n ? Promise.resolve([]) : subnets.before(header);
  const activitiesRead = factsRead.then(decodeNativeActivities);
  const changesRead = readBlockChanges(reader, header, netuidsRead, factsRead, activitiesRead);
  // Registered before any await, so blocks read side by side chain in order. The holders ask the
  // block's metagraphs which hotkeys an epoch paid.
  const subnetsRead = subnetStates.at(header, changesRead);
  const holdersRead = holders.at(
    header,
    Promise.all([changesRead, subnetsRead]).then(([changes, subnetState]) => ({ ...changes, subnetState })),
  );
  // The genesis block has no parent (chopsticks gives its own hash as the parent's).
  const parentHolders = header.number === 0n ? undefined : holders.known(header.parentHash);
  // A failed read of the facts fails the block here.
  const [facts, netuids, previousNetuids] = await Promise.all([factsRead, netuidsRead, netuidsBefore]);
  const [pools, holderState, parentHolderState] = await Promise.all([
    reader.poolsAt(header.hash, netuids),
    holdersRead,
    parentHolders?.catch(() => undefined),
  ]);
  // Coldkeys whose stake changed without an event naming them (an epoch paid their hotkeys): the
  // holder states of the block and its parent say which; without the parent's (the first block
  // read after a start), every coldkey of the subnets that had an epoch, and of root, may have moved.
  const { epochs } = await changesRead;
  const movedWithoutEvent =
    holderState === undefined
      ? []
      : parentHolderState !== undefined
        ? changedColdkeys(parentHolderState, holderState)
        : coldkeysOn(holderState, epochs.length === 0 ? [] : [ROOT_NETUID, ...epochs]);
  // Staking income at an epoch: decided from the parent's and the block's holder states (only the
  // stepping subnets' and root's positions), carried on the rewarded coldkeys' balances.
  const prices = new Map((pools ?? []).map((pool) => [pool.netuid, pool] as const));
  const rewards =
    epochs.length === 0 || holderState === undefined || parentHolderState === undefined
      ? new Map<Hex, PositionReward[]>()
      : decideRewards({
          parent: parentHolderState,
          state: holderState,
          epochs,
          stakes: stakeFlowsOf(facts.events),
          priceOf: (netuid) => {
            const pool = prices.get(netuid);
            return pool === undefined ? undefined : nativePoolPrice(pool);
          },
        });
  const activities = await activitiesRead;
  const touched = new Set(touchedAccounts(activities).map((account) => account.publicKey as Hex));
  // An account with activity in the block carries its balance on that activity already.
  const moved = new Set(movedWithoutEvent);
  const refreshed = [
    ...movedWithoutEvent,
    ...[...rewards.keys()].filter((coldkey) => !moved.has(coldkey)).sort(),
  ].filter((coldkey) => !touched.has(coldkey));
  const read = [...touched, ...refreshed];
  const [balances, storage, count, subnetState, changes] = await Promise.all([
    read.length === 0
      ? new Map<string, AccountBalance>()
      : balancesAfter(reader, header, read, netuids, holderState, rewards),
    reader.networkStorageAt(header.hash, netuids),
    accountsCount,
    subnetsRead,
    changesRead,
  ]);
  return [
    ...activityRecords(activities, { chainId: network.chainId, blockRef: ref, balances }),
    ...balanceSnapshotRecords(refreshed, balances, { chainId: network.chainId, ref }),
    ...subnetRemovedRecords(previousNetuids, netuids, { chainId: network.chainId, ref }),
    ...nativePoolRecords(pools ?? [], { chainId: network.chainId, ref, events: facts.events }),
    ...subnetRecords(subnetState, changes.emissions, { chainId: network.chainId, ref }),
    ...(holderState === undefined
      ? []
      : holderRecords(holderState, {
          chainId: network.chainId,
          ref,
          chunkSize: context.holderChunkSize,
          parent: parentHolderState,
          keyframeEvery: context.holderKeyframeBlocks,
        })),
    nativeStatsRecord(
      {
        header,
        ref,
        storage,
        pools: pools ?? [],
        accountsCount: count,
        counts: blockContentCounts(facts),
        finalizedBlockNumber: finalized,
      },
      network.chainId,
    ),
    ...context.seenRecords({ chainId: network.chainId, ref }),
  ];
}

/** The block's BlockChanges, read once its facts and subnets are. */
async function readBlockChanges(
  reader: NativeChainReader,
  header: BlockHeader,
  netuidsRead: Promise<number[]>,
  factsRead: Promise<NativeBlockFacts>,
  activitiesRead: Promise<ReturnType<typeof decodeNativeActivities>>,
): Promise<BlockChanges> {
  const [runtime, netuids, facts, activities] = await Promise.all([
    reader.runtimeAt(header.hash),
    netuidsRead,
    factsRead,
    activitiesRead,
  ]);
  const [epochs, adjustments, emissions] = await Promise.all([
    epochsAt(runtime, header.number, netuids),
    adjustmentsAt(runtime, header.number, netuids),
    readEmissions(runtime, netuids, header.number),
  ]);
  return { runtime, netuids, epochs, adjustments, emissions, activities, events: facts.events };
}

async function balancesAfter(
  reader: NativeChainReader,
  header: BlockHeader,
  accounts: readonly Hex[],
  netuids: readonly number[],
  holderState: HolderState | undefined,
  rewards: ReadonlyMap<Hex, PositionReward[]>,
): Promise<Map<string, AccountBalance>> {
  // Positions come from the holder state (every Alpha entry, already read); a runtime whose share
  // pool the holders cannot read is asked for them (StakeInfoRuntimeApi).
  const [balances, positions] = await Promise.all([
    reader.balancesAt(header.hash, accounts),
    holderState === undefined ? reader.positionsAt(header.hash, accounts, netuids) : positionsOf(holderState, accounts),
  ]);
  const after = new Map<string, AccountBalance>();
  for (const account of accounts) {
    const balance = balances.get(account);
    if (balance === undefined) continue;
    after.set(account, {
      freeRao: balance.freeRao.toString(),
      reservedRao: balance.reservedRao.toString(),
      frozenRao: balance.frozenRao.toString(),
      positions: (positions?.get(account) ?? []).map((position) => ({
        netuid: position.netuid,
        hotkey: accountFromPublicKey(position.hotkey),
        stakeNalpha: position.stakeNalpha.toString(),
      })),
      rewards: rewards.get(account) ?? [],
    });
  }
  return after;
}
