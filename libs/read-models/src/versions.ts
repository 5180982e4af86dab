import { DATA_PREFIX } from "./hashTags.js";
/**
 * A projection's version: a key every commit of the projection replaces, in the same MULTI/EXEC as
 * its writes, with a token no other commit uses. Two reads of the same token therefore saw the same
 * read model, which lets a reader keep an answer for as long as the token stands (data-query's
 * answer cache) without knowing which keys the answer came from. The token is random rather than a
 * counter so that a Redis that lost everything, and counts again from the start, never repeats one.
 */
export const readModelVersionKeys = {
  market: `${DATA_PREFIX}market:version`,
  subnets: `${DATA_PREFIX}subnets:version`,
} as const;

export type VersionedProjection = keyof typeof readModelVersionKeys;
