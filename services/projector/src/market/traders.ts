import type { RedisMulti } from "@platform/projection";
import { PoolSnapshot } from "@platform/proto/events/v1/chain_network";
import {
  marketKeys,
  ordinalOf,
  type SeriesPoint,
  TRADER_COUNTS_KEPT,
  TRADER_WINDOW_BLOCKS,
  traderBlockTag,
} from "@platform/read-models";
import { execPipeline, type Redis } from "@platform/store";
import { parsePoint } from "../shared/seriesStore.js";
import { blockTradersOf, type MarketChange } from "./decode.js";

/**
 * One pool's trader operations, in offset order: an add is the block's traders (the block's
 * members at any other hash go first, so a block re-read on another branch replaces its traders),
 * a remove takes the members and counts of that block and hash out.
 */
type TraderOp = [block: string, hash: string, buyers: readonly string[], sellers: readonly string[]] | [string, string];

/**
 * Distinct buyers and sellers over the newest TRADER_WINDOW_BLOCKS blocks, per pool, kept exactly
 * (libs/read-models market.ts has the keys). Buckets sum; distinct coldkeys do not, so each pool
 * keeps a log of (block, hash tag, coldkey) members scored by block, trimmed below the window, with a
 * hash of each coldkey's member count beside it: its HLEN is the distinct count, kept up to date as
 * members come and go, so a block costs its own traders and those it trims, never a scan of the
 * window. After each block the counts through it are recorded (`…:traders`, the newest
 * TRADER_COUNTS_KEPT blocks), which data-query reads at the snapshot's block and hash.
 *
 * A removed block (ChainEventRemoved) takes its own members and counts out by hash, so the
 * coldkeys only it counted are no longer counted, and a coldkey that also traded in an earlier
 * block of the window still is. One script per batch, inside the batch's MULTI: no read before it,
 * and the whole update lands with the series or not at all.
 */
const SCRIPT = `
local window = tonumber(ARGV[1])
local kept = tonumber(ARGV[2])
local pools = cjson.decode(ARGV[3])
local function drop(log, keys, members)
  for _, member in ipairs(members) do
    redis.call('ZREM', log, member)
    local coldkey = string.match(member, '^%d+:[^:]+:(.+)$')
    if redis.call('HINCRBY', keys, coldkey, -1) <= 0 then redis.call('HDEL', keys, coldkey) end
  end
end
local function atBlock(key, block, prefix)
  local found = {}
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', key, block, block)) do
    if prefix == nil or string.sub(member, 1, #prefix) == prefix then table.insert(found, member) end
  end
  return found
end
local function add(log, keys, block, hash, coldkeys)
  for _, coldkey in ipairs(coldkeys) do
    if redis.call('ZADD', log, 'NX', block, block .. ':' .. hash .. ':' .. coldkey) == 1 then
      redis.call('HINCRBY', keys, coldkey, 1)
    end
  end
end
for index, ops in ipairs(pools) do
  local base = (index - 1) * 5
  local buyLog, buyKeys, sellLog, sellKeys, counts = KEYS[base + 1], KEYS[base + 2], KEYS[base + 3], KEYS[base + 4], KEYS[base + 5]
  for _, op in ipairs(ops) do
    local block, hash = op[1], op[2]
    if #op == 2 then
      local prefix = block .. ':' .. hash .. ':'
      drop(buyLog, buyKeys, atBlock(buyLog, block, prefix))
      drop(sellLog, sellKeys, atBlock(sellLog, block, prefix))
      for _, member in ipairs(atBlock(counts, block, prefix)) do redis.call('ZREM', counts, member) end
    else
      drop(buyLog, buyKeys, atBlock(buyLog, block, nil))
      drop(sellLog, sellKeys, atBlock(sellLog, block, nil))
      redis.call('ZREMRANGEBYSCORE', counts, block, block)
      add(buyLog, buyKeys, block, hash, op[3])
      add(sellLog, sellKeys, block, hash, op[4])
      local cutoff = tonumber(block) - window
      drop(buyLog, buyKeys, redis.call('ZRANGEBYSCORE', buyLog, '-inf', cutoff))
      drop(sellLog, sellKeys, redis.call('ZRANGEBYSCORE', sellLog, '-inf', cutoff))
      local member = block .. ':' .. hash .. ':' .. redis.call('HLEN', buyKeys) .. ':' .. redis.call('HLEN', sellKeys)
      redis.call('ZADD', counts, tonumber(block), member)
      redis.call('ZREMRANGEBYRANK', counts, 0, -(kept + 1))
    end
  end
end
return 0
`;

/** The pools' trader operations of a batch, by netuid, in order: adds of snapshots with traders, every pool removal. */
export function traderOps(changes: readonly MarketChange[]): Map<number, TraderOp[]> {
  const ops = new Map<number, TraderOp[]>();
  const push = (netuid: number, op: TraderOp) => {
    const list = ops.get(netuid);
    if (list === undefined) ops.set(netuid, [op]);
    else list.push(op);
  };
  for (const change of changes) {
    if (change.kind === "pool" && change.traders !== undefined)
      push(change.netuid, [
        String(change.point.b),
        traderBlockTag(change.point.h),
        change.traders.buyers,
        change.traders.sellers,
      ]);
    else if (change.kind === "removed" && change.what === "pool")
      push(change.netuid, [String(change.block), traderBlockTag(change.hash)]);
  }
  return ops;
}

/** Queues the batch's trader updates (one EVAL, its keys declared) on the commit's MULTI. */
export function queueTraders(
  multi: RedisMulti,
  changes: readonly MarketChange[],
  windowBlocks = TRADER_WINDOW_BLOCKS,
): void {
  const ops = traderOps(changes);
  if (ops.size === 0) return;
  const keys = [...ops.keys()].flatMap((netuid) => [
    marketKeys.poolTraders(netuid, "buyers"),
    marketKeys.poolTraderKeys(netuid, "buyers"),
    marketKeys.poolTraders(netuid, "sellers"),
    marketKeys.poolTraderKeys(netuid, "sellers"),
    marketKeys.poolTraderCounts(netuid),
  ]);
  multi.eval(SCRIPT, keys.length, ...keys, windowBlocks, TRADER_COUNTS_KEPT, JSON.stringify([...ops.values()]));
}

/** Blocks a rebuild hands the script at a time (one EVAL each). */
const REBUILD_BLOCKS = 500;

/**
 * Rebuilds the pools' trader logs and counts from their points in Redis, after a restore copied
 * the series back from PostgreSQL (their Redis window, REDIS_HOT_WINDOW_BLOCKS, 7,200 by default:
 * the whole counting window of the newest block; the counts of the 63 below it miss the blocks of
 * their window that are older than that, and a smaller hot window rebuilds fewer blocks). Each
 * pool's points are replayed in order, as the projection applied them.
 */
export async function rebuildTraders(
  redis: Redis,
  newestPools: ReadonlyMap<number, SeriesPoint>,
  windowBlocks = TRADER_WINDOW_BLOCKS,
): Promise<void> {
  for (const [netuid, newest] of newestPools) {
    // From the window of the oldest block whose counts are kept, so those counts come back alike.
    const from = ordinalOf(Math.max(0, newest.b - windowBlocks - TRADER_COUNTS_KEPT + 2));
    const texts = await redis.zrangebyscore(marketKeys.poolPoints(netuid), from, "+inf");
    const changes: MarketChange[] = [];
    for (const text of texts) {
      const point = parsePoint(text);
      const traders = blockTradersOf(PoolSnapshot.decode(Buffer.from(point.p, "base64")));
      if (traders !== undefined) changes.push({ kind: "pool", netuid, point, traders });
    }
    for (let at = 0; at < changes.length; at += REBUILD_BLOCKS) {
      const multi = redis.multi();
      queueTraders(multi, changes.slice(at, at + REBUILD_BLOCKS), windowBlocks);
      await execPipeline(multi);
    }
  }
}
