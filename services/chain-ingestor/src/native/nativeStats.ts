import type { ChainRef } from "@platform/proto/common/v1/common";
import type { NetworkStatsSnapshot } from "@platform/proto/events/v1/chain_network";
import { eventTypeOf } from "@platform/proto/topics";
import { formatU64Ratio } from "@platform/subtensor";
import type { Hex } from "viem";
import type { BlockHeader } from "../follower/blocks.js";
import { NETWORK_KEY, networkEventId, type NetworkRecord } from "../network/networkRecord.js";
import type { NativeNetworkStorage } from "./nativeChainReader.js";
import type { NativePool } from "./nativePools.js";
import type { RuntimeEvent } from "./runtimeEvent.js";

const ROOT_NETUID = 0;

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
  if (lastLock === undefined || minLock === undefined || lastRegistered === undefined || lockInterval === undefined) return undefined;
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
}

/**
 * The network totals at the block, keyed `network` like the EVM source's. Stake comes from the
 * pools (`SubnetTAO`: root's is the root stake, the others' the alpha pools'), `TotalStake` when the
 * runtime keeps it. Counts the chain does not keep (extrinsics, transfers, accounts holding a
 * balance: only an indexer that followed from genesis can tell) are left out; the accounts count is
 * the number of `System.Account` entries.
 */
export function nativeStatsRecord(input: NativeStatsInput, chainId: number): NetworkRecord {
  const { storage, pools, ref } = input;
  const stakedRoot = pools.find((pool) => pool.netuid === ROOT_NETUID)?.taoInRao ?? 0n;
  const stakedAlpha = pools.filter((pool) => pool.netuid !== ROOT_NETUID).reduce((sum, pool) => sum + pool.taoInRao, 0n);
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
  };
  const payload = { event: { $case: "networkStatsSnapshot" as const, value: stats } };
  const eventType = eventTypeOf(payload);
  return { topic: "chain.network.v1", key: NETWORK_KEY, eventId: networkEventId(chainId, ref.blockHash, eventType, NETWORK_KEY), eventType, ref, payload };
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

/** Counts kept per block hash; a fork's blocks each keep their own. */
const COUNTS_KEPT = 1_024;

/** Up to this many accounts (ten pages of keys) every block is counted in full: exact, and cheap. */
const FULL_COUNT_UP_TO = 10_000n;

/**
 * The number of accounts (`System.Account` entries) at each block. A network of up to 10,000 is
 * counted in full at every block. A larger one is kept incrementally: a block whose parent's count
 * is known adds its own `NewAccount` less `KilledAccount` events; any other (the first block read,
 * or after a gap) is counted in full, page by page, once; and a full recount every
 * `recountEveryBlocks` corrects what the events do not say (state changed without them: a runtime
 * migration, or a devnet's storage set by hand). Blocks read side by side wait on their parent's
 * count rather than counting in full each.
 */
export function accountsCounter(options: { countAt(blockHash: Hex): Promise<bigint>; recountEveryBlocks: number }) {
  const counts = new Map<Hex, Promise<bigint>>();
  const keep = (hash: Hex, count: Promise<bigint>) => {
    if (counts.size >= COUNTS_KEPT) counts.delete(counts.keys().next().value!);
    counts.set(hash, count);
    // A failed count is forgotten, so the next reading of the block counts again.
    count.catch(() => counts.delete(hash));
    return count;
  };
  return {
    /** Call it before the block's first await: blocks read side by side register in chain order. */
    countAt(header: BlockHeader, events: Promise<readonly RuntimeEvent[]>): Promise<bigint> {
      // Not every path awaits the events: a failed read must not go unhandled (the block's own read reports it).
      events.catch(() => undefined);
      const known = counts.get(header.hash);
      if (known !== undefined) return known;
      const parent = counts.get(header.parentHash);
      const recount = header.number % BigInt(options.recountEveryBlocks) === 0n;
      if (parent === undefined || recount) return keep(header.hash, options.countAt(header.hash));
      return keep(
        header.hash,
        (async () => {
          const before = await parent.catch(() => undefined);
          if (before === undefined || before <= FULL_COUNT_UP_TO) return options.countAt(header.hash);
          return before + accountsDelta(await events);
        })(),
      );
    },
  };
}
