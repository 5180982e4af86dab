import { randomBytes } from "node:crypto";
import { unavailable } from "@platform/errors";
import { QuoteResponse } from "@platform/proto/intents/v1/intents";
import type { Redis } from "@platform/store";

/**
 * Quotes are kept in Redis rather than signed and handed back: the quote id stays short (it travels
 * in notifications, which cap it at 128 characters), preflight can use a quote's own order when the
 * client sends only the id, and an expired quote is told apart from an unknown one for a while.
 *
 * - `intents-gateway:quote:<quoteId>` string, JSON `{ v: 1, userAddress, quote }` (quote as
 *   QuoteResponse JSON); expires `quoteTtlSeconds + QUOTE_RETENTION_SECONDS` after it was made.
 */
export const quoteKey = (quoteId: string) => `intents-gateway:quote:${quoteId}`;

export interface StoredQuote {
  quote: QuoteResponse;
  /** The user the quote was made for, EIP-55; absent when the request named none. */
  userAddress?: string;
}

export interface QuoteStore {
  save(stored: StoredQuote, ttlSeconds: number): Promise<void>;
  load(quoteId: string): Promise<StoredQuote | undefined>;
}

/** `q_` and 128 random bits, base64url: unguessable, so one caller cannot read another's quote. */
export function newQuoteId(): string {
  return `q_${randomBytes(16).toString("base64url")}`;
}

/** Quote ids this service makes; anything else cannot be a stored quote and is not looked up. */
export const QUOTE_ID = /^q_[A-Za-z0-9_-]{22}$/;

export function createQuoteStore(redis: Redis, retentionSeconds: number): QuoteStore {
  return {
    async save(stored, ttlSeconds) {
      const value = JSON.stringify({
        v: 1,
        userAddress: stored.userAddress ?? null,
        quote: QuoteResponse.toJSON(stored.quote),
      });
      await redis
        .set(quoteKey(stored.quote.quoteId), value, "EX", ttlSeconds + retentionSeconds)
        .catch((error: unknown) => {
          throw unavailable("UNAVAILABLE", "the quote store is unavailable; retry shortly", {}, error);
        });
    },
    async load(quoteId) {
      if (!QUOTE_ID.test(quoteId)) return undefined;
      const text = await redis.get(quoteKey(quoteId)).catch((error: unknown) => {
        throw unavailable("UNAVAILABLE", "the quote store is unavailable; retry shortly", {}, error);
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
