import type { ChainRef } from "@platform/proto/common/v1/common";
import type { PoolSnapshot } from "@platform/proto/events/v1/chain_network";
import { eventTypeOf } from "@platform/proto/topics";
import { formatRatio, ROOT_NETUID } from "@platform/subtensor";
import type { Hex } from "viem";
import type { BlockHeader } from "../../follower/blocks.js";
import { netuidField } from "../node/eventFields.js";
import type { NativePool } from "../node/nativePool.js";
import type { RuntimeEvent } from "../node/runtimeEvent.js";
import { type NetworkRecord, netuidKey, networkEventId } from "../records/networkRecord.js";
import { poolMechanism } from "../records/poolMechanism.js";
import { chainedByBlock } from "./chainedByBlock.js";
import { blockPoolFlows } from "./poolVolume.js";

/** The chain quotes a price as `price x 1e9 -> u64` (rao per alpha): nine decimals of TAO. */
const PRICE_DECIMALS = 9;

/**
 * TAO per alpha at the precision the chain quotes (nine decimals, as the Alpha precompile's
 * `getAlphaPrice` / 1e9): root and stable pools trade 1:1, an empty alpha reserve prices at 0, a
 * dynamic pool at the exact `SubnetTAO / SubnetAlphaIn`, truncated. The runtime of spec 218 divides
 * in I96F32 (32 binary fraction digits) before scaling, so its own figure can be 1e-9 lower (1/10
 * is 0.099999999 there); the exact ratio is the pool's price, and the one users can recompute.
 */
export function nativePoolPrice(pool: NativePool): string {
  if (pool.netuid === ROOT_NETUID || pool.mechanism === 0) return "1";
  if (pool.alphaInNalpha === 0n) return "0";
  return formatRatio(pool.taoInRao, pool.alphaInNalpha, PRICE_DECIMALS);
}

/**
 * One PoolSnapshot per subnet at the block, keyed `netuid:<n>` like the EVM source's. The moving
 * price and the cumulative volume are left out: spec 218 keeps neither (`SubnetMovingPrice` and
 * `SubnetVolume` came later), and the consumers show them as unknown rather than zero. Each
 * snapshot carries instead the TAO its pool swapped in the block (`block_volume_rao`, from the
 * block's stake events, poolVolume.ts; "0" when none), which the projector keeps running, and
 * its split into buys and sells with their counts and distinct coldkeys (the block's order flow).
 */
export function nativePoolRecords(
  pools: readonly NativePool[],
  context: { chainId: number; ref: ChainRef; events: readonly RuntimeEvent[] },
): NetworkRecord[] {
  const flows = blockPoolFlows(context.events);
  return pools.map((pool) => {
    const key = netuidKey(pool.netuid);
    const flow = flows.get(pool.netuid);
    const snapshot: PoolSnapshot = {
      ref: context.ref,
      netuid: pool.netuid,
      mechanism: poolMechanism(pool.mechanism),
      taoInRao: pool.taoInRao.toString(),
      alphaInNalpha: pool.alphaInNalpha.toString(),
      alphaOutNalpha: pool.alphaOutNalpha.toString(),
      alphaIssuanceNalpha: (pool.alphaInNalpha + pool.alphaOutNalpha).toString(),
      priceTao: nativePoolPrice(pool),
      blockVolumeRao: ((flow?.buyRao ?? 0n) + (flow?.sellRao ?? 0n)).toString(),
      blockFlow: {
        buyVolumeRao: (flow?.buyRao ?? 0n).toString(),
        sellVolumeRao: (flow?.sellRao ?? 0n).toString(),
        buys: flow?.buys ?? 0,
        sells: flow?.sells ?? 0,
        buyers: [...(flow?.buyers ?? [])].sort(),
        sellers: [...(flow?.sellers ?? [])].sort(),
      },
    };
    const payload = { event: { $case: "poolSnapshot" as const, value: snapshot } };
    const eventType = eventTypeOf(payload);
    return {
      topic: "chain.network.v1" as const,
      key,
      eventId: networkEventId(context.chainId, context.ref.blockHash, eventType, key),
      eventType,
      ref: context.ref,
      payload,
    };
  });
}

/** The netuid set after a block: `SubtensorModule.NetworkAdded(netuid, mechanism)` adds, `NetworkRemoved(netuid)` removes. */
export function nextNetuids(netuids: readonly number[], events: readonly RuntimeEvent[]): number[] {
  const set = new Set(netuids);
  for (const event of events) {
    if (event.pallet !== "SubtensorModule" || (event.name !== "NetworkAdded" && event.name !== "NetworkRemoved"))
      continue;
    const netuid = netuidField(Array.isArray(event.data) ? event.data[0] : event.data);
    if (netuid === undefined) continue;
    if (event.name === "NetworkAdded") set.add(netuid);
    else set.delete(netuid);
  }
  return [...set].sort((a, b) => a - b);
}

/**
 * The subnets (`NetworksAdded` netuids) at each block, kept from the registration and removal
 * events: enumerating the map is a key scan, slow under chopsticks (tens of ms a block, and it
 * serialises the node). Read in full at the first block, at block 1, and every `rescanEveryBlocks`.
 */
export function subnetsByBlock(options: { netuidsAt(blockHash: Hex): Promise<number[]>; rescanEveryBlocks: number }) {
  const netuids = chainedByBlock<number[]>({
    full: (header) => options.netuidsAt(header.hash),
    next: nextNetuids,
    fullAt: (header) => header.number === 1n || header.number % BigInt(options.rescanEveryBlocks) === 0n,
  });
  return {
    at: (header: BlockHeader, events: Promise<readonly RuntimeEvent[]>) => netuids.at(header, events),
    /** The subnets before the block (its parent's), from the kept values or read. */
    before: (header: BlockHeader) => netuids.known(header.parentHash) ?? options.netuidsAt(header.parentHash),
  };
}

/**
 * A SubnetRemoved record per subnet the block took away: in its parent's subnet set, not in its
 * own. Usually a `NetworkRemoved` event's, but a subnet found gone by a full read (a removal the
 * source did not see, or state written without events) is removed the same way.
 */
export function subnetRemovedRecords(
  before: readonly number[],
  after: readonly number[],
  context: { chainId: number; ref: ChainRef },
): NetworkRecord[] {
  const remaining = new Set(after);
  return before
    .filter((netuid) => !remaining.has(netuid))
    .map((netuid) => {
      const key = netuidKey(netuid);
      const payload = { event: { $case: "subnetRemoved" as const, value: { ref: context.ref, netuid } } };
      const eventType = eventTypeOf(payload);
      return {
        topic: "chain.network.v1" as const,
        key,
        eventId: networkEventId(context.chainId, context.ref.blockHash, eventType, key),
        eventType,
        ref: context.ref,
        payload,
      };
    });
}
