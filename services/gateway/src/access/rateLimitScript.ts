/**
 * One Redis round trip per protected request: is the key still active with the secret version the
 * token was issued under, and may it spend `cost` units now (GCRA)? Redis' own clock (TIME) is the
 * single source of time, so gateway replicas with skewed clocks share budgets exactly.
 *
 * KEYS[1] auth:key:{<keyId>}   (auth's registry, read only)
 * KEYS[2] rl:{<keyId>}:<policy>  (the key's theoretical arrival time, ms)
 * ARGV[1] secret version from the token
 * ARGV[2] emission interval, ms per unit (1000 / rate)
 * ARGV[3] burst, units
 * ARGV[4] cost, units (0: only check the key, spend nothing)
 *
 * Returns {verdict, remaining, resetMs, retryAfterMs}; verdict 1 allowed, 0 limited, -1 revoked
 * or unknown key, -2 secret rotated since the token was issued.
 */
export const RATE_LIMIT_SCRIPT = `
local key = redis.call('HMGET', KEYS[1], 'status', 'secretVersion')
if key[1] ~= 'active' then return {-1, 0, 0, 0} end
if tonumber(key[2]) ~= tonumber(ARGV[1]) then return {-2, 0, 0, 0} end

local interval = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local burstOffset = interval * burst
local tat = tonumber(redis.call('GET', KEYS[2]) or now)
if tat < now then tat = now end

if cost == 0 then
  return {1, math.floor((burstOffset - (tat - now)) / interval), tat - now, 0}
end

local newTat = tat + interval * cost
local allowAt = newTat - burstOffset
if allowAt > now then
  return {0, math.max(0, math.floor((burstOffset - (tat - now)) / interval)), tat - now, allowAt - now}
end
redis.call('SET', KEYS[2], newTat, 'PX', math.ceil(newTat - now) + 1000)
return {1, math.floor((burstOffset - (newTat - now)) / interval), newTat - now, 0}
`;
