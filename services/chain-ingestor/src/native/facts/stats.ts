import type { ChainRef } from "@platform/proto/common/v1/common";
import type { NetworkStatsSnapshot } from "@platform/proto/events/v1/chain_network";
import { eventTypeOf } from "@platform/proto/topics";
import { formatU64Ratio, ROOT_NETUID } from "@platform/subtensor";
import type { Hex } from "viem";
import type { BlockHeader } from "../../follower/blocks.js";
import type { NativeNetworkStorage } from "../node/chainReader.js";
import type { NativePool } from "../node/nativePool.js";
import type { NativeBlockFacts, RuntimeEvent } from "../node/runtimeEvent.js";
import { NETWORK_KEY, type NetworkRecord, networkEventId } from "../records/networkRecord.js";
import { chainedByBlock } from "./chainedByBlock.js";

/**
 * The subnet registration cost at the block, as the runtime's `get_network_lock_cost` (what
 * SubnetRegistrationRuntimeApi answers) computes it from storage: the last lock, doubled once a
 * subnet was ever registered, less a linear reduction since that registration, never below the
 * minimum. Recomputed here because the runtime API costs a wasm execution per block (about 85 ms
 * under chopsticks, which would cap the source far below its throughput target); the pipeline test
 * checks the two agree.
 */
export function subnetLockCost(storage: NativeNetworkStorage, blockNumber: bigint): bigint | undefined {
  const { lastLock, minLock, lastRegistered, lockInterval } = storage;
  if (lastLock === undefined || minLock === undefined || lastRegistered === undefined || lockInterval === undefined)
    return undefined;
  const doubled = lastLock * (lastRegistered === 0n ? 1n : 2n);
  const perBlock = lockInterval === 0n ? 0n : lastLock / lockInterval;
  const elapsed = blockNumber > lastRegistered ? blockNumber - lastRegistered : 0n;
  const reduced = doubled - perBlock * elapsed;
  const cost = reduced > 0n ? reduced : 0n;
  return cost < minLock ? minLock : cost;
}

export interface NativeStatsInput {
  header: BlockHeader;
  ref: ChainRef;
  storage: NativeNetworkStorage;
  pools: readonly NativePool[];
  accountsCount: bigint | undefined;
  /** What the block itself holds (blockContentCounts). */
  counts: BlockContentCounts;
  /** The newest block held final when this one was read (finalizedThrough), if known. */
  finalizedBlockNumber?: bigint | undefined;
}

/** A block's own counts: its extrinsics and its `Balances.Transfer` events. */
export interface BlockContentCounts {
  extrinsics: number;
  transfers: number;
}

/**
 * Counted from the facts the block is read for anyway (its body's extrinsics, its events): no
 * further read. Only events the block kept count: a failed extrinsic's transfer left none.
 */
export function blockContentCounts(facts: Pick<NativeBlockFacts, "extrinsicHashes" | "events">): BlockContentCounts {
  let transfers = 0;
  for (const event of facts.events) if (event.pallet === "Balances" && event.name === "Transfer") transfers += 1;
  return { extrinsics: facts.extrinsicHashes.length, transfers };
}

/**
 * The network totals at the block, keyed `network`. Stake comes from the pools (`SubnetTAO`:
 * root's is the root stake, the others' the alpha pools'), `TotalStake` when the runtime keeps it.
 * The accounts count is the number of `System.Account` entries. Extrinsics and transfers, which the
 * chain keeps no total of, go out as the block's own counts: the market projection sums them over
 * the blocks it folded (a total over the chain's history needs every block since genesis, which
 * one block's reads cannot give). Accounts holding a balance are left out (see the README).
 */
export function nativeStatsRecord(input: NativeStatsInput, chainId: number): NetworkRecord {
  const { storage, pools, ref } = input;
  const stakedRoot = pools.find((pool) => pool.netuid === ROOT_NETUID)?.taoInRao ?? 0n;
  const stakedAlpha = pools
    .filter((pool) => pool.netuid !== ROOT_NETUID)
    .reduce((sum, pool) => sum + pool.taoInRao, 0n);
  const cost = subnetLockCost(storage, input.header.number);
  const optional = <T>(name: string, value: T | undefined) => (value === undefined ? {} : { [name]: value });
  const stats: NetworkStatsSnapshot = {
    ref,
    totalIssuanceRao: storage.totalIssuance?.toString() ?? "",
    ...optional("balancesTotalIssuanceRao", storage.balancesIssuance?.toString()),
    totalStakeRao: (storage.totalStake ?? stakedRoot + stakedAlpha).toString(),
    stakedRootRao: stakedRoot.toString(),
    stakedAlphaPoolsRao: stakedAlpha.toString(),
    ...optional("subnetLockedRao", storage.subnetLocked?.toString()),
    blockEmissionRao: storage.blockEmission?.toString() ?? "",
    taoWeight: storage.taoWeight === undefined ? "" : formatU64Ratio(storage.taoWeight),
    rootNetuid: ROOT_NETUID,
    subnetsCount: pools.length,
    subnetLimit: Number(storage.subnetLimit ?? 0n),
    ...optional("subnetRegistrationCostRao", cost?.toString()),
    ...optional("subnetMinLockRao", storage.minLock?.toString()),
    ...optional("subnetLastLockRao", storage.lastLock?.toString()),
    ...optional("subnetLastRegistrationBlock", storage.lastRegistered?.toString()),
    ...optional("lockReductionIntervalBlocks", storage.lockInterval?.toString()),
    ...optional("accountsCount", input.accountsCount?.toString()),
    blockExtrinsicsCount: input.counts.extrinsics,
    blockTransfersCount: input.counts.transfers,
    ...optional("finalizedBlockNumber", input.finalizedBlockNumber?.toString()),
  };
  const payload = { event: { $case: "networkStatsSnapshot" as const, value: stats } };
  const eventType = eventTypeOf(payload);
  return {
    topic: "chain.network.v1",
    key: NETWORK_KEY,
    eventId: networkEventId(chainId, ref.blockHash, eventType, NETWORK_KEY),
    eventType,
    ref,
    payload,
  };
}

/** Accounts a block created less those it removed (`System.NewAccount`, `System.KilledAccount`). */
export function accountsDelta(events: readonly RuntimeEvent[]): bigint {
  let delta = 0n;
  for (const event of events) {
    if (event.pallet !== "System") continue;
    if (event.name === "NewAccount") delta += 1n;
    else if (event.name === "KilledAccount") delta -= 1n;
  }
  return delta;
}

/**
 * The number of accounts (`System.Account` entries) at each block, kept from `NewAccount` and
 * `KilledAccount` events. Counted in full from storage (a key scan: about 60-90 ms for 200
 * accounts under chopsticks, which walks its storage layers; far too slow for every block) at the
 * first block read or after a gap, at block 1 (a genesis may be amended before its first block
 * without events, as a devnet's funding is), and every `recountEveryBlocks`, which corrects
 * anything else the events do not say (a runtime migration).
 */
export function accountsCounter(options: { countAt(blockHash: Hex): Promise<bigint>; recountEveryBlocks: number }) {
  const counts = chainedByBlock<bigint>({
    full: (header) => options.countAt(header.hash),
    next: (count, events) => count + accountsDelta(events),
    fullAt: (header) => header.number === 1n || header.number % BigInt(options.recountEveryBlocks) === 0n,
  });
  return { countAt: (header: BlockHeader, events: Promise<readonly RuntimeEvent[]>) => counts.at(header, events) };
}
