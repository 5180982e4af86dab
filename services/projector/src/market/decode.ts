import type { ConsumedRecord } from "@platform/bus";
import { DecodeError } from "@platform/errors/base";
import type { Logger } from "@platform/log";
import type { ChainRef } from "@platform/proto/common/v1/common";
import type { ChainEventRemoved } from "@platform/proto/events/v1/chain";
import {
  EmissionSnapshot,
  NetworkChainEvent,
  NetworkStatsSnapshot,
  PoolSnapshot,
} from "@platform/proto/events/v1/chain_network";
import { PriceEvent, PriceObserved } from "@platform/proto/events/v1/oracle_prices";
import { TOPICS } from "@platform/proto/topics";
import {
  type BlockCounts,
  type BlockVolume,
  type FlowCounters,
  ordinalOf,
  type PointMeasure,
} from "@platform/read-models";
import { eventBytesOr, skippable } from "../shared/eventBytes.js";
import { netuidOfKey, refPosition } from "../shared/eventRefs.js";
import type { NewPoint } from "../shared/series.js";
import type { RemovalChange } from "../shared/subnetRemovals.js";

/** The coldkeys that bought and that sold through a pool in one block (PoolBlockFlow.buyers / sellers). */
export interface BlockTraders {
  buyers: readonly string[];
  sellers: readonly string[];
}

/** One thing a record tells the market projection, in offset order. */
export type MarketChange =
  | { kind: "pool"; netuid: number; point: NewPoint; ref?: ChainRef; traders?: BlockTraders }
  | { kind: "emission"; netuid: number; point: NewPoint; ref?: ChainRef }
  | { kind: "stats"; point: NewPoint; ref?: ChainRef }
  | { kind: "price"; asset: string; vs: string; point: NewPoint; identity: string }
  | { kind: "removed"; what: "pool" | "emission"; netuid: number; block: number; hash: string }
  | { kind: "removed"; what: "stats"; block: number; hash: string }
  | { kind: "removed"; what: "price"; asset: string; block: number; hash: string; identity: string }
  | RemovalChange;

const toBase64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

export function poolMeasure(pool: PoolSnapshot): PointMeasure {
  const close: Record<string, string> = {
    tao_in_rao: pool.taoInRao,
    alpha_in_nalpha: pool.alphaInNalpha,
    alpha_out_nalpha: pool.alphaOutNalpha,
    alpha_issuance_nalpha: pool.alphaIssuanceNalpha,
  };
  // A runtime without `SubnetMovingPrice` / `SubnetVolume` (spec 218) leaves them out.
  if (pool.movingPriceTao !== undefined) close.moving_price_tao = pool.movingPriceTao;
  if (pool.rootProp !== undefined) close.root_prop = pool.rootProp;
  return {
    price: pool.priceTao,
    ...(pool.volumeTotalRao === undefined ? {} : { cumulative: pool.volumeTotalRao }),
    close,
  };
}

/**
 * The block's own volume a pool snapshot carries, which the series keeps running (runningVolume.ts):
 * only where the snapshot has no `SubnetVolume` of its own, which is the cumulative counter then.
 */
export function blockVolumeOf(pool: PoolSnapshot): BlockVolume | undefined {
  const { blockVolumeRao: v, volumeTotalRao, ref } = pool;
  if (v === undefined || volumeTotalRao !== undefined || ref === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new DecodeError(`block volume not an integer: ${JSON.stringify(v)}`);
  const f = blockFlowOf(pool);
  return { ph: ref.parentHash.toLowerCase(), v, ...(f === undefined ? {} : { f }) };
}

/** The block's own buys and sells, where the snapshot carries them (block_flow). */
function blockFlowOf(pool: PoolSnapshot): FlowCounters | undefined {
  const flow = pool.blockFlow;
  if (flow === undefined) return undefined;
  const { buyVolumeRao: b, sellVolumeRao: s } = flow;
  if (!/^\d+$/.test(b) || !/^\d+$/.test(s)) throw new DecodeError("block buy or sell volume not an integer");
  return { b, s, bn: String(flow.buys), sn: String(flow.sells) };
}

/** The coldkeys that bought and sold in the snapshot's block, where it carries its order flow. */
export function blockTradersOf(pool: PoolSnapshot): BlockTraders | undefined {
  const flow = pool.blockFlow;
  return flow === undefined ? undefined : { buyers: flow.buyers, sellers: flow.sellers };
}

/** The block's own counts a stats snapshot carries, which the series keeps running (runningCounts.ts). */
export function blockCountsOf(stats: NetworkStatsSnapshot): BlockCounts | undefined {
  const { blockExtrinsicsCount: x, blockTransfersCount: r, ref } = stats;
  if (x === undefined || r === undefined || ref === undefined) return undefined;
  return { ph: ref.parentHash.toLowerCase(), x, r };
}

export const priceIdentity = (blockHash: string, logIndex: number | undefined) =>
  `${blockHash.toLowerCase()}:${logIndex ?? "-"}`;

/** Decodes a batch of either topic. An undecodable record is logged and skipped: retried, it would stop the projection for good. */
export function decodeMarketBatch(messages: readonly ConsumedRecord[], log: Logger): MarketChange[] {
  const changes: MarketChange[] = [];
  for (const message of messages) {
    if (message.value === null) continue;
    const where = { topic: message.topic, partition: message.partition, offset: message.offset };
    try {
      if (message.topic === TOPICS.chainNetwork.name) {
        if (skippable(message, MARKET_EVENT_TYPES)) continue;
        const change = networkChange(NetworkChainEvent.decode(message.value), message);
        if (change !== undefined) changes.push(change);
      } else if (message.topic === TOPICS.oraclePrices.name) {
        const event = PriceEvent.decode(message.value).event;
        if (event === undefined) throw new DecodeError("no event in the record");
        if (event.$case === "priceObserved") changes.push(priceChange(event.value));
        else {
          const removal = priceRemoval(event.value);
          if (removal !== undefined) changes.push(removal);
        }
      }
    } catch (error) {
      log.error({ ...where, err: error }, "undecodable market record; skipped");
    }
  }
  return changes;
}

/** The chain.network.v1 events the market projection reads (others are skipped undecoded). */
const MARKET_EVENT_TYPES = new Set([
  "PoolSnapshot",
  "EmissionSnapshot",
  "NetworkStatsSnapshot",
  "SubnetRemoved",
  "ChainEventRemoved",
]);

function networkChange(payload: NetworkChainEvent, message: Pick<ConsumedRecord, "value">): MarketChange | undefined {
  const event = payload.event;
  if (event === undefined) throw new DecodeError("no event in the record");
  switch (event.$case) {
    case "poolSnapshot": {
      const { block, hash, time } = refPosition(event.value.ref);
      const p = toBase64(eventBytesOr(message, () => PoolSnapshot.encode(event.value).finish()));
      const u = blockVolumeOf(event.value);
      const traders = blockTradersOf(event.value);
      return {
        kind: "pool",
        netuid: event.value.netuid,
        ...(traders === undefined ? {} : { traders }),
        point: {
          o: ordinalOf(block),
          b: block,
          h: hash,
          t: time,
          p,
          m: poolMeasure(event.value),
          ...(u === undefined ? {} : { u }),
        },
        ref: event.value.ref,
      };
    }
    case "emissionSnapshot": {
      const { block, hash, time } = refPosition(event.value.ref);
      const p = toBase64(eventBytesOr(message, () => EmissionSnapshot.encode(event.value).finish()));
      return {
        kind: "emission",
        netuid: event.value.netuid,
        point: { o: ordinalOf(block), b: block, h: hash, t: time, p },
        ref: event.value.ref,
      };
    }
    case "networkStatsSnapshot": {
      const { block, hash, time } = refPosition(event.value.ref);
      const p = toBase64(eventBytesOr(message, () => NetworkStatsSnapshot.encode(event.value).finish()));
      const k = blockCountsOf(event.value);
      return {
        kind: "stats",
        point: { o: ordinalOf(block), b: block, h: hash, t: time, p, ...(k === undefined ? {} : { k }) },
        ref: event.value.ref,
      };
    }
    case "subnetRemoved": {
      const { block, hash } = refPosition(event.value.ref);
      return { kind: "subnetRemoved", netuid: event.value.netuid, block, hash };
    }
    case "chainEventRemoved": {
      const removed = event.value;
      const { block, hash } = refPosition(removed.removed);
      switch (removed.removedEventType) {
        case "SubnetRemoved":
          return { kind: "removed", what: "subnetRemoved", netuid: netuidOfKey(removed.key), block, hash };
        case "PoolSnapshot":
          return { kind: "removed", what: "pool", netuid: netuidOfKey(removed.key), block, hash };
        case "EmissionSnapshot":
          return { kind: "removed", what: "emission", netuid: netuidOfKey(removed.key), block, hash };
        case "NetworkStatsSnapshot":
          return { kind: "removed", what: "stats", block, hash };
        // Where the price source published its removals before they moved to oracle.prices.v1:
        // such records may still be in the topic's retained tail.
        case "PriceObserved":
          return priceRemoval(removed);
        default:
          return undefined;
      }
    }
    default:
      return undefined;
  }
}

/**
 * A round a reorganisation took back (oracle.prices.v1, keyed by its asset like the round), matched
 * to the round by block hash and log index.
 */
function priceRemoval(removed: ChainEventRemoved): MarketChange | undefined {
  if (removed.removedEventType !== "PriceObserved") return undefined;
  const { block, hash } = refPosition(removed.removed);
  return {
    kind: "removed",
    what: "price",
    asset: removed.key,
    block,
    hash,
    identity: priceIdentity(hash, removed.removed?.logIndex),
  };
}

function priceChange(observed: PriceObserved): MarketChange {
  const { block, hash, time } = refPosition(observed.ref);
  if (observed.asset === "" || observed.vs === "") throw new DecodeError("price without asset or vs");
  const logIndex = observed.ref?.logIndex;
  const p = toBase64(PriceObserved.encode(observed).finish());
  return {
    kind: "price",
    asset: observed.asset,
    vs: observed.vs.toLowerCase(),
    identity: priceIdentity(hash, logIndex),
    point: { o: ordinalOf(block, logIndex ?? 0), b: block, h: hash, t: time, p, m: { price: observed.price } },
  };
}
