import { unavailable } from "@platform/errors";
import type { Redis } from "@platform/store";
import { authKeys } from "../registry/keys.js";
import { fromRegistry } from "../registry/storeErrors.js";

/**
 * Counts a successful API_KEY grant against its key's budget of `perMinute` per clock minute
 * (`auth:grants:{keyId}:<minute>`, gone after the minute). Past it the grant is refused with 503
 * UNAVAILABLE and a Retry-After to the minute's end: `/auth` never answers 429 (API.md), and a
 * client asking for fresh tokens that often is better served by its refresh token or by keeping
 * its access token for its 15 minutes. Only grants that passed the credential check count.
 */
export async function spendGrant(redis: Redis, keyId: string, perMinute: number, now = Date.now()): Promise<void> {
  const minute = Math.floor(now / 60_000);
  const key = authKeys.grantsOfKey(keyId, minute);
  const [[, count]] = (await fromRegistry(() => redis.multi().incr(key).pexpire(key, 61_000).exec())) as [
    [unknown, number],
  ];
  if (count <= perMinute) return;
  const retryAfterSeconds = Math.max(1, Math.ceil(((minute + 1) * 60_000 - now) / 1_000));
  throw unavailable(
    "GRANTS_EXHAUSTED",
    `this API key has had ${perMinute} API_KEY grants this minute; use its refresh token, or retry in ${retryAfterSeconds} s`,
    { retryAfterSeconds },
  );
}
