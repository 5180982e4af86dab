import type { Logger } from "@platform/log";
import { intentsChangeLog } from "@platform/read-models";
import { type ChangeFeed, createChangeFeed, type Redis } from "@platform/store";

/**
 * One reader of the intents change log for every open WatchIntents; each projection commit's
 * signal wakes it. A resume replays at most `maxReplayEntries`, then `gap`: the log keeps up to
 * 100,000 entries, and without a bound a `Last-Event-ID: 0-0` made this process, which also answers
 * quotes and preflights, read all of them for one stream.
 */
export function createIntentsChangeFeed(deps: {
  redis: Redis;
  log: Logger;
  pollMs: number;
  maxReplayEntries: number;
}): ChangeFeed {
  return createChangeFeed({
    redis: deps.redis,
    key: intentsChangeLog.key,
    pollMs: deps.pollMs,
    maxCatchUp: deps.maxReplayEntries,
    onError: (error) => deps.log.warn({ err: error }, "reading the intents change log failed; retrying"),
  });
}
