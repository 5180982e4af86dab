/**
 * How long a Data API answer stays fresh (API.md, "Live updates and conditional reads").
 *
 * Every answer of the twelve routes renders `as_of`, the head block of the read model it was read
 * from, history windows included: a new block changes the text, and so the entity tag, of every
 * answer. An answer is therefore fresh until the next block is expected: `as_of.timestamp` plus
 * the block time, counted from now, in whole seconds rounded down and never more than one block
 * time (a head whose timestamp runs ahead of this clock, as on a chopsticks devnet, still gives one
 * block) nor less than 0 (a block is overdue: revalidate every time). An answer without `as_of`
 * cannot say when it changes: 0.
 *
 * The exception is an answer pinned to a finalized block (a `latest` route's `block_number`
 * given as a number, whose `as_of` says finalized: RouteResult.immutable): no new block and no
 * reorganisation can change it, so it is fresh for IMMUTABLE_MAX_AGE_SECONDS and `immutable`. A
 * history window that ends at or before a finalized block still renders the head's `as_of`, which
 * moves every block, and is no such answer.
 */
export function secondsUntilNextBlock(asOfTimestamp: string | undefined, blockSeconds: number, nowMs: number): number {
  if (asOfTimestamp === undefined || blockSeconds <= 0) return 0;
  const blockMs = Date.parse(asOfTimestamp);
  if (!Number.isFinite(blockMs)) return 0;
  const seconds = Math.floor((blockMs + blockSeconds * 1_000 - nowMs) / 1_000);
  return Math.min(blockSeconds, Math.max(0, seconds));
}

/** `as_of.timestamp` of a rendered answer, if it has one. */
export function asOfTimestampOf(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const asOf = (body as { as_of?: unknown }).as_of;
  if (typeof asOf !== "object" || asOf === null) return undefined;
  const timestamp = (asOf as { timestamp?: unknown }).timestamp;
  return typeof timestamp === "string" ? timestamp : undefined;
}

/** How long an answer that can never change stays fresh: a year, the conventional "for ever" (RFC 8246). */
export const IMMUTABLE_MAX_AGE_SECONDS = 31_536_000;

/**
 * The answer was served to one API key: shared caches keep none of it, immutable answers included
 * (`public` would let a shared cache hand data:read answers to callers without a token).
 */
export const cacheControlOf = (maxAgeSeconds: number, immutable = false): string =>
  immutable ? `private, max-age=${maxAgeSeconds}, immutable` : `private, max-age=${maxAgeSeconds}`;
