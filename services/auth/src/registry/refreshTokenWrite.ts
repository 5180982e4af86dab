import type { Redis } from "@platform/store";
import { type RefreshTokenRecord, refreshTokenToHash } from "./apiKeyRecord.js";
import { authKeys } from "./keys.js";

/**
 * Writes a refresh-token record and keeps at most `cap` live ones per API key: the key's tokens
 * are a sorted set by expiry (`auth:refresh-of:{keyId}`), and a write past the cap drops the
 * tokens that expire first (records and set members), expired ones always. Atomic in Redis, and
 * the same whichever writes first (the issuer at once, the projection when it folds the event,
 * or a replay): which tokens survive depends only on the set of tokens, so a rebuild from Kafka
 * ends where the live registry was.
 *
 * KEYS: token record, the key's set. ARGV: expiry (epoch ms), now (epoch ms), cap, then the
 * record's field/value pairs.
 */
const WRITE_REFRESH_TOKEN = `
local expires = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
if expires <= now then return 0 end
local fields = {}
for i = 4, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('PEXPIREAT', KEYS[1], expires)
redis.call('ZADD', KEYS[2], expires, KEYS[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local extra = redis.call('ZCARD', KEYS[2]) - cap
if extra > 0 then
  local dropped = redis.call('ZPOPMIN', KEYS[2], extra)
  for i = 1, #dropped, 2 do redis.call('DEL', dropped[i]) end
end
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if #last == 2 then redis.call('PEXPIREAT', KEYS[2], last[2]) end
return 1
`;

type Multi = ReturnType<Redis["multi"]>;

interface WithScript {
  writeRefreshToken(tokenKey: string, setKey: string, ...args: (string | number)[]): Promise<number>;
}

/** Registers the script on a connection (once); ioredis sends EVALSHA and falls back to EVAL. */
function scripted(redis: Redis): Redis & WithScript {
  const commands = redis as Redis & Partial<WithScript>;
  if (typeof commands.writeRefreshToken !== "function")
    redis.defineCommand("writeRefreshToken", { numberOfKeys: 2, lua: WRITE_REFRESH_TOKEN });
  return redis as Redis & WithScript;
}

function argsOf(
  tokenHmac: string,
  record: RefreshTokenRecord,
  cap: number,
  now: number,
): [string, string, ...(string | number)[]] {
  return [
    authKeys.refreshToken(tokenHmac),
    authKeys.refreshTokensOfKey(record.keyId),
    Date.parse(record.expiresAt),
    now,
    cap,
    ...Object.entries(refreshTokenToHash(record)).flat(),
  ];
}

/** Defines the script on `redis` so `queueRefreshTokenWrite` can queue it in its MULTIs. */
export function defineRefreshTokenWrite(redis: Redis): void {
  scripted(redis);
}

/** The write on its own. */
export async function writeCappedRefreshToken(
  redis: Redis,
  tokenHmac: string,
  record: RefreshTokenRecord,
  cap: number,
  now = Date.now(),
): Promise<void> {
  await scripted(redis).writeRefreshToken(...argsOf(tokenHmac, record, cap, now));
}

/** The write queued in a MULTI of a connection `defineRefreshTokenWrite` prepared. */
export function queueRefreshTokenWrite(
  multi: Multi,
  tokenHmac: string,
  record: RefreshTokenRecord,
  cap: number,
  now = Date.now(),
): void {
  // On a MULTI the command is queued, not sent: the pipeline it returns settles with EXEC.
  (multi as unknown as QueuedScript).writeRefreshToken(...argsOf(tokenHmac, record, cap, now));
}

interface QueuedScript {
  writeRefreshToken(tokenKey: string, setKey: string, ...args: (string | number)[]): Multi;
}
