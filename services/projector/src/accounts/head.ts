import type { AccountsChange } from "./decode.js";
import { BLOCKS_KEPT } from "./keys.js";

/**
 * Moves the projection head. KEYS[1] = the blocks zset, KEYS[2] = the head hash; ARGV[1] = JSON
 * list of `["b", number, member]` (a block seen) and `["u", member]` (a block a removal took
 * back), in order; ARGV[2] = how many blocks to keep. The head is the newest block standing.
 *
 * Blocks are added and removed by their exact (number, hash) member, never by range: every
 * partition sees some records of a block and, after a reorganisation, the removals of exactly
 * those records after them, so whatever the interleaving of partitions (a rebuild replays them in
 * another one), an orphaned block's last operation is a removal and a canonical block's only ones
 * are additions: the same blocks stand in the end. A script rather than WATCH because every
 * partition's batches move the same head: run inside the batch's MULTI, it applies atomically
 * against whatever another partition wrote meanwhile. Block numbers stay below 2^53, so scores
 * are exact.
 */
export const MOVE_HEAD_SCRIPT = `
local ops = cjson.decode(ARGV[1])
for _, op in ipairs(ops) do
  if op[1] == "b" then
    redis.call("ZADD", KEYS[1], op[2], op[3])
  elseif op[1] == "u" then
    redis.call("ZREM", KEYS[1], op[2])
  end
end
redis.call("ZREMRANGEBYRANK", KEYS[1], 0, -(tonumber(ARGV[2]) + 1))
local top = redis.call("ZRANGE", KEYS[1], -1, -1)
if top[1] then
  local head = cjson.decode(top[1])
  redis.call("HSET", KEYS[2], "chainId", head.chainId, "blockNumber", head.blockNumber, "blockHash", head.blockHash, "timestamp", head.timestamp)
end
return 1
`;

/** The ARGV of MOVE_HEAD_SCRIPT for a batch's changes; undefined when the batch moves no head. */
export function headArguments(changes: readonly AccountsChange[]): [string, string] | undefined {
  const ops: Array<[string, string, string] | [string, string]> = [];
  for (const change of changes) {
    const op: [string, string, string] | [string, string] | undefined =
      change.kind === "block" ? ["b", change.number, change.member] : change.kind === "unblock" ? ["u", change.member] : undefined;
    // A block's records arrive together: one op per run of the same block.
    if (op !== undefined && JSON.stringify(op) !== JSON.stringify(ops.at(-1))) ops.push(op);
  }
  return ops.length === 0 ? undefined : [JSON.stringify(ops), String(BLOCKS_KEPT)];
}
