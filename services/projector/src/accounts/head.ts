import { accountsKeys, BLOCKS_KEPT, dataChangeLog } from "@platform/read-models";
import type { AccountsChange } from "./decode.js";

/**
 * Moves the projection head. KEYS[1] = the head hash, KEYS[2..n-1] = every partition's blocks zset,
 * partition 0 first, KEYS[n] = the data change log (libs/read-models changeLogs.ts), where a head
 * that moved is appended (in KEYS like every key the script touches: Redis Cluster routes and
 * checks a script by them); ARGV[1] = the batch's partition (0-based), ARGV[2] = JSON list of
 * `["b", number, member]` (the partition delivered a block: its BlockSeen) and `["u", member]` (a
 * removal took that BlockSeen back), in order; ARGV[3] = how many blocks to keep per partition;
 * ARGV[4] = the change log's length bound.
 *
 * The head is the oldest of the partitions' newest standing blocks: every partition has delivered
 * every record of it, so the read model holds that block in full (partitions are applied
 * independently, and the head of a single partition may run ahead of another's accounts). While a
 * partition has delivered no block yet there is no head.
 *
 * Blocks are added and removed by their exact (number, hash) member, never by range: after a
 * reorganisation each partition sees the removal of exactly its BlockSeen of each orphaned block,
 * so whatever the interleaving, an orphaned block's last operation is a removal and a canonical
 * block's only one an addition. A script rather than WATCH because every partition's batches move
 * the same head: run inside the batch's MULTI, it applies atomically against whatever another
 * partition wrote meanwhile. Block numbers stay below 2^53, so scores are exact.
 */
export const MOVE_HEAD_SCRIPT = `
local own = KEYS[tonumber(ARGV[1]) + 2]
local ops = cjson.decode(ARGV[2])
for _, op in ipairs(ops) do
  if op[1] == "b" then
    redis.call("ZADD", own, op[2], op[3])
  elseif op[1] == "u" then
    redis.call("ZREM", own, op[2])
  end
end
redis.call("ZREMRANGEBYRANK", own, 0, -(tonumber(ARGV[3]) + 1))
local oldest = nil
local oldestNumber = nil
for index = 2, #KEYS - 1 do
  local top = redis.call("ZRANGE", KEYS[index], -1, -1, "WITHSCORES")
  if not top[1] then return 0 end
  local number = tonumber(top[2])
  if oldestNumber == nil or number < oldestNumber then
    oldest = top[1]
    oldestNumber = number
  end
end
local head = cjson.decode(oldest)
local before = redis.call("HGET", KEYS[1], "blockHash")
redis.call("HSET", KEYS[1], "chainId", head.chainId, "blockNumber", head.blockNumber, "blockHash", head.blockHash, "timestamp", head.timestamp)
if before ~= head.blockHash then
  redis.call("XADD", KEYS[#KEYS], "MAXLEN", "~", ARGV[4], "*", "k", "head", "m", "accounts",
    "c", head.chainId, "n", head.blockNumber, "h", head.blockHash, "t", head.timestamp)
  return 2
end
return 1
`;

/** MOVE_HEAD_SCRIPT's answer when the head now names another block (0: not every partition has a block yet; 1: unchanged). */
export const HEAD_MOVED = 2;

/** The KEYS of MOVE_HEAD_SCRIPT, given every partition's blocks zset in partition order. */
export const headKeys = (blockKeys: readonly string[]): string[] => [
  accountsKeys.head,
  ...blockKeys,
  dataChangeLog.key,
];

/** The ARGV of MOVE_HEAD_SCRIPT after KEYS for one partition's batch; undefined when it moves no head. */
export function headArguments(
  partition: number,
  changes: readonly AccountsChange[],
): [string, string, string, string] | undefined {
  const ops: Array<[string, string, string] | [string, string]> = [];
  for (const change of changes) {
    if (change.kind === "block") ops.push(["b", change.number, change.member]);
    else if (change.kind === "unblock") ops.push(["u", change.member]);
  }
  return ops.length === 0
    ? undefined
    : [String(partition), JSON.stringify(ops), String(BLOCKS_KEPT), String(dataChangeLog.maxLength)];
}
