import { ORDINAL_SPAN } from "@platform/read-models";
import type { Redis } from "@platform/store";

/**
 * Subnets that left the network (SubnetRemoved). A projection keeps, per netuid, the block of its
 * removal (`<block>:<hash>` in a hash of its own) and lists the netuid only while one of its series
 * has a point newer than that block: the removed subnet's last snapshots stay in the series (its
 * history), and a subnet registered again under the netuid is listed from its first snapshot on.
 * A removal a reorganisation undid (ChainEventRemoved of the SubnetRemoved) is forgotten again.
 * Everything runs inside the batch's MULTI, in offset order, so it needs no reads of its own.
 */

export type RemovalChange =
  | { kind: "subnetRemoved"; netuid: number; block: number; hash: string }
  | { kind: "removed"; what: "subnetRemoved"; netuid: number; block: number; hash: string };

type Multi = ReturnType<Redis["multi"]>;

const mark = (block: number, hash: string) => `${block}:${hash.toLowerCase()}`;

/** Queues the batch's removals and their undoing on the MULTI, in order. */
export function queueRemovals(multi: Multi, removalsKey: string, changes: readonly RemovalChange[]): void {
  for (const change of changes) {
    if (change.kind === "subnetRemoved")
      multi.hset(removalsKey, String(change.netuid), mark(change.block, change.hash));
    else multi.eval(FORGET_IF_SAME, 1, removalsKey, String(change.netuid), mark(change.block, change.hash));
  }
}

/**
 * Queues the membership check of `netuid` in `setKey`: in the set exactly while one of `seriesKeys`
 * has a point above its removal's block (or any point, when it was never removed). Queue it after
 * the batch's series writes and removals.
 */
export function queueMembership(
  multi: Multi,
  options: { seriesKeys: readonly string[]; setKey: string; removalsKey: string; netuid: number },
): void {
  const keys = [...options.seriesKeys, options.setKey, options.removalsKey];
  multi.eval(KNOWN_UNLESS_REMOVED, keys.length, ...keys, String(options.netuid), String(ORDINAL_SPAN));
}

const FORGET_IF_SAME =
  "if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) end return 1";

/** KEYS: the series zsets, then the set, then the removals hash; ARGV: the netuid, the ordinal span. */
const KNOWN_UNLESS_REMOVED = `
local newest = -1
for i = 1, #KEYS - 2 do
  local top = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
  if top[2] then
    local block = math.floor(tonumber(top[2]) / tonumber(ARGV[2]))
    if block > newest then newest = block end
  end
end
local removed = redis.call('HGET', KEYS[#KEYS], ARGV[1])
local removedAt = removed and tonumber(string.match(removed, '^(%d+):')) or -1
if newest >= 0 and newest > removedAt then redis.call('SADD', KEYS[#KEYS - 1], ARGV[1]) else redis.call('SREM', KEYS[#KEYS - 1], ARGV[1]) end
return 1`;
