/**
 * One Redis round trip for the protected requests of one API key that arrive in the same event-loop
 * turn (one request is a batch of one): is the key still active with the secret version the tokens
 * were issued under, and may each request spend its `cost` units now (GCRA), in the order given?
 * Redis' own clock (TIME) is the single source of time, so gateway replicas with skewed clocks
 * share budgets exactly. Both keys carry the API key id as their hash tag: one slot.
 *
 * KEYS[1] auth:key:{<keyId>}   (auth's registry, read only)
 * KEYS[2] rl:{<keyId>}:<policy>  (the key's theoretical arrival time, ms)
 * ARGV[1] secret version from the tokens
 * ARGV[2] emission interval, ms per unit (1000 / rate)
 * ARGV[3] burst, units
 * ARGV[4..] each request's cost, units (0: only check the key, spend nothing)
 *
 * Returns {-1} for a revoked or unknown key and {-2} for a secret rotated since the tokens were
 * issued (every request of the batch); else {verdict, remaining, resetMs, retryAfterMs} per request,
 * flattened, verdict 1 allowed or 0 limited.
 */
export const RATE_LIMIT_SCRIPT = `
local key = redis.call('HMGET', KEYS[1], 'status', 'secretVersion')
if key[1] ~= 'active' then return {-1} end
if tonumber(key[2]) ~= tonumber(ARGV[1]) then return {-2} end

local interval = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local burstOffset = interval * burst
local tat = tonumber(redis.call('GET', KEYS[2]) or now)
if tat < now then tat = now end

local verdicts = {}
local spent = false
for i = 4, #ARGV do
  local cost = tonumber(ARGV[i])
  if cost == 0 then
    table.insert(verdicts, 1)
    table.insert(verdicts, math.floor((burstOffset - (tat - now)) / interval))
    table.insert(verdicts, tat - now)
    table.insert(verdicts, 0)
  else
    local newTat = tat + interval * cost
    local allowAt = newTat - burstOffset
    if allowAt > now then
      table.insert(verdicts, 0)
      table.insert(verdicts, math.max(0, math.floor((burstOffset - (tat - now)) / interval)))
      table.insert(verdicts, tat - now)
      table.insert(verdicts, allowAt - now)
    else
      tat = newTat
      spent = true
      table.insert(verdicts, 1)
      table.insert(verdicts, math.floor((burstOffset - (newTat - now)) / interval))
      table.insert(verdicts, newTat - now)
      table.insert(verdicts, 0)
    end
  end
end
if spent then redis.call('SET', KEYS[2], tat, 'PX', math.ceil(tat - now) + 1000) end
return verdicts
`;
