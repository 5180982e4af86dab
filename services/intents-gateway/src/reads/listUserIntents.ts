import { invalidArgument } from "@platform/errors";
import type { PageInfo, PageRequest } from "@platform/proto/common/v1/common";
import type { IntentRecord } from "@platform/proto/intents/v1/intents";
import { intentsReadKeys, recordKeyOfMember } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { parseAddress } from "../validation/fields.js";
import { type CursorScope, decodeCursor, encodeCursor } from "./cursor.js";
import { loadRecords, withCurrentHeads } from "./loadRecords.js";
import { descendingPage } from "./zsetPage.js";

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

export function pageLimitOf(page: PageRequest | undefined): number {
  const limit = page?.limit ?? 0;
  if (limit === 0) return DEFAULT_PAGE_LIMIT;
  if (limit > MAX_PAGE_LIMIT)
    throw invalidArgument("INVALID_PARAMETER", `limit must be between 1 and ${MAX_PAGE_LIMIT}`, { parameter: "limit" });
  return limit;
}

/**
 * A page of a user's pending (newest first) or expired (latest fill deadline first) intents. The
 * page is cut on the sorted set, so has_more and the cursor are exact; a member whose record has
 * just gone (the order became final between the two reads) is left out of the page.
 */
export async function listUserIntents(
  redis: Redis,
  list: CursorScope["list"],
  request: { userAddress: string; page?: PageRequest | undefined },
): Promise<{ intents: IntentRecord[]; page: PageInfo }> {
  const userAddress = parseAddress(request.userAddress, "userAddress");
  const limit = pageLimitOf(request.page);
  const scope: CursorScope = { list, userAddress };
  const after = request.page?.cursor ? decodeCursor(request.page.cursor, scope) : undefined;
  const key = list === "pending" ? intentsReadKeys.userPending(userAddress) : intentsReadKeys.userExpired(userAddress);

  const page = await descendingPage(redis, key, limit, after);
  const records = (
    await loadRecords(
      redis,
      page.entries.map((entry) => recordKeyOfMember(entry.member)),
    )
  ).filter((record) => record !== undefined);
  const last = page.entries.at(-1);
  return {
    intents: await withCurrentHeads(redis, records),
    page: {
      limit,
      hasMore: page.hasMore,
      ...(page.hasMore && last !== undefined ? { nextCursor: encodeCursor(scope, last) } : {}),
    },
  };
}
