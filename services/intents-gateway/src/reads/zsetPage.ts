import type { Redis } from "@platform/store";
import type { ListPosition } from "./cursor.js";
import { mirrorUnavailable } from "./mirrorErrors.js";

export interface ZsetPage {
  entries: ListPosition[];
  /** More entries follow the last one served. */
  hasMore: boolean;
}

/**
 * A page of a sorted set in descending (score, member) order, which is Redis' own REV order, after
 * an exclusive position. Members sharing the cursor's score are read whole and filtered by member,
 * so a page boundary inside a run of equal scores loses and repeats nothing; such runs are short
 * here (scores are milliseconds of first sighting, or fill deadlines). One more entry than asked
 * is read to know whether there is a next page.
 */
export async function descendingPage(
  redis: Redis,
  key: string,
  limit: number,
  after?: ListPosition,
): Promise<ZsetPage> {
  const want = limit + 1;
  try {
    const entries: ListPosition[] = [];
    let below = "+inf";
    if (after !== undefined) {
      const ties = pairs(await redis.zrange(key, after.score, after.score, "BYSCORE", "REV", "WITHSCORES"));
      // Redis orders equal scores by member bytes; the members here are ASCII, where JS agrees.
      entries.push(...ties.filter((entry) => entry.member < after.member).slice(0, want));
      below = `(${after.score}`;
    }
    if (entries.length < want) {
      entries.push(
        ...pairs(
          await redis.zrange(key, below, "-inf", "BYSCORE", "REV", "LIMIT", 0, want - entries.length, "WITHSCORES"),
        ),
      );
    }
    return { entries: entries.slice(0, limit), hasMore: entries.length > limit };
  } catch (error) {
    throw mirrorUnavailable(error);
  }
}

function pairs(flat: string[]): ListPosition[] {
  const entries: ListPosition[] = [];
  for (let index = 0; index + 1 < flat.length; index += 2)
    entries.push({ member: flat[index]!, score: flat[index + 1]! });
  return entries;
}
