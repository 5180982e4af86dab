import { createHash, randomBytes } from "node:crypto";
import { unavailable } from "@platform/errors";
import { QuoteResponse } from "@platform/proto/intents/v1/intents";
import type { Redis } from "@platform/store";

/**
 * Quotes are kept in Redis rather than signed and handed back: the quote id stays short (it travels
 * in notifications, which cap it at 128 characters), preflight can use a quote's own order when the
 * client sends only the id, and an expired quote is told apart from an unknown one for a while.
 *
 * Each API key keeps at most `perKey` quotes (QUOTES_PER_KEY): without a bound one key quoting at
 * its rate grew the Redis it shares with rate limits and auth by about 250 MB an hour. Past the cap
 * the key's quotes that expire first are dropped, never the new one: a client re-quoting as prices
 * move wants its newest quote, and the dropped ones are mostly past `validUntil` already.
 *
 * - `intents-gateway:quote:{ak:<apiKeyId>}:<quoteId>` string, JSON `{ v: 1, userAddress, quote }`
 *   (quote as QuoteResponse JSON); expires `quoteTtlSeconds + QUOTE_RETENTION_SECONDS` after it was made.
 * - `intents-gateway:quotes:{ak:<apiKeyId>}` sorted set, the key's quote ids scored by when their
 *   entry expires (ms); expires with its last quote.
 * Both carry the key's hash tag, so the save script touches one slot on a Redis Cluster too. The
 * tag is never empty (`{}` would hash the whole name): calls without a key id share `{ak:}`.
 */
const tagOf = (apiKeyId: string) => `{ak:${apiKeyId}}`;
export const quoteKey = (apiKeyId: string, quoteId: string) => `intents-gateway:quote:${tagOf(apiKeyId)}:${quoteId}`;
export const quoteIndexKey = (apiKeyId: string) => `intents-gateway:quotes:${tagOf(apiKeyId)}`;

export interface StoredQuote {
  quote: QuoteResponse;
  /** The user the quote was made for, EIP-55; absent when the request named none. */
  userAddress?: string;
}

export interface QuoteStore {
  /** Stores the quote under the API key that asked for it ("" for calls without one). */
  save(stored: StoredQuote, ttlSeconds: number, apiKeyId: string): Promise<void>;
  /** A quote is found only under the key that made it; another key's quote id reads as unknown. */
  load(quoteId: string, apiKeyId: string): Promise<StoredQuote | undefined>;
}

/** `q_` and 128 random bits, base64url: unguessable, so one caller cannot read another's quote. */
export function newQuoteId(): string {
  return `q_${randomBytes(16).toString("base64url")}`;
}

/** Quote ids this service makes; anything else cannot be a stored quote and is not looked up. */
export const QUOTE_ID = /^q_[A-Za-z0-9_-]{22}$/;

// One script, so concurrent saves of one key never leave more than the cap (nor an index entry
// without its quote). Redis's own clock scores the entries, so replicas with skewed clocks agree.
// The evicted quotes' keys are built here from the prefix: they share the index's hash tag, hence
// its slot. KEYS: index, quote. ARGV: quote id, value, seconds to keep, cap, quote key prefix.
const SAVE_SCRIPT = `
local index, quoteKey = KEYS[1], KEYS[2]
local id, value, seconds, cap, prefix = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', index, '-inf', now)
redis.call('SET', quoteKey, value, 'EX', seconds)
redis.call('ZADD', index, now + seconds * 1000, id)
local over = redis.call('ZCARD', index) - cap
if over > 0 then
  local dropped = redis.call('ZRANGE', index, 0, over - 1)
  for i = 1, #dropped do redis.call('UNLINK', prefix .. dropped[i]) end
  redis.call('ZREMRANGEBYRANK', index, 0, over - 1)
end
if redis.call('PTTL', index) < seconds * 1000 then redis.call('PEXPIRE', index, seconds * 1000) end
return over > 0 and over or 0
`;
const SAVE_SHA = createHash("sha1").update(SAVE_SCRIPT).digest("hex");

const storeUnavailable = (error: unknown) =>
  unavailable("UNAVAILABLE", "the quote store is unavailable; retry shortly", {}, error);

export function createQuoteStore(redis: Redis, retentionSeconds: number, perKey: number): QuoteStore {
  return {
    async save(stored, ttlSeconds, apiKeyId) {
      const value = JSON.stringify({
        v: 1,
        userAddress: stored.userAddress ?? null,
        quote: QuoteResponse.toJSON(stored.quote),
      });
      const quoteId = stored.quote.quoteId;
      const keys = [quoteIndexKey(apiKeyId), quoteKey(apiKeyId, quoteId)] as const;
      const args = [quoteId, value, String(ttlSeconds + retentionSeconds), String(perKey), quoteKey(apiKeyId, "")];
      try {
        await redis.evalsha(SAVE_SHA, 2, ...keys, ...args);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw storeUnavailable(error);
        // First use on this server (or after SCRIPT FLUSH): EVAL loads it for the next EVALSHA.
        await redis.eval(SAVE_SCRIPT, 2, ...keys, ...args).catch((again: unknown) => {
          throw storeUnavailable(again);
        });
      }
    },
    async load(quoteId, apiKeyId) {
      if (!QUOTE_ID.test(quoteId)) return undefined;
      const text = await redis.get(quoteKey(apiKeyId, quoteId)).catch((error: unknown) => {
        throw storeUnavailable(error);
      });
      if (text === null) return undefined;
      const parsed = JSON.parse(text) as { v: number; userAddress: string | null; quote: unknown };
      return {
        quote: QuoteResponse.fromJSON(parsed.quote),
        ...(parsed.userAddress === null ? {} : { userAddress: parsed.userAddress }),
      };
    },
  };
}
