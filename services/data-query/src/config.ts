import {
  loadConfigOrExit,
  natsCredentialVars,
  postgresVars,
  redisCredentialVars,
  redisReadFromVars,
  redisTopologyRule,
  redisTopologyVars,
  vars,
} from "@platform/config";
import { serviceVars } from "@platform/service";
import { z } from "zod";

export const DATA_QUERY_GROUPS = ["accounts", "market", "subnets", "events"] as const;

/** The groups whose answers come (or will come) from the history database. */
export const HISTORY_GROUPS: readonly (typeof DATA_QUERY_GROUPS)[number][] = ["accounts"];

export const readsHistory = (groups: readonly string[]): boolean =>
  groups.some((group) => (HISTORY_GROUPS as readonly string[]).includes(group));

export const dataQueryConfigSchema = z
  .object({
    ...serviceVars,
    /** REDIS_URL, or the cluster or Sentinel nodes (REDIS_MODE): redisTopologyVars. */
    ...redisTopologyVars,
    ...redisReadFromVars,
    ...redisCredentialVars,
    /** Which gRPC services this process serves, so each group deploys and scales on its own. */
    DATA_QUERY_GROUPS: vars
      .list()
      .refine((groups) => groups.every((group) => (DATA_QUERY_GROUPS as readonly string[]).includes(group)), {
        error: `must list groups among ${DATA_QUERY_GROUPS.join(", ")}`,
      })
      .transform((groups) => [...new Set(groups)] as Array<(typeof DATA_QUERY_GROUPS)[number]>),
    /**
     * Bound on the heap of the answers a group keeps while its read model's version stands
     * (shared/answerCache.ts; estimated as 4 times their wire bytes). 64 MiB by default, a quarter of
     * the subnets group's 256 MiB memory limit: on a mainnet-sized state every subnet's summary is
     * 190 KB of JSON, a page of 100 holders 50 KB, so about a hundred of the heaviest answers.
     */
    ANSWER_CACHE_MAX_BYTES: vars.positiveInt().default(64 * 1024 * 1024),
    /** The `events` group's wake-up: the data projections' change signals. Required with that group. */
    NATS_URL: vars.url(["nats", "tls"]).optional(),
    ...natsCredentialVars,
    /**
     * The history database (PostgreSQL) and data-query's read-only role there: POSTGRES_URL (no
     * credentials), POSTGRES_USERNAME/POSTGRES_PASSWORD, POSTGRES_POOL_SIZE. Required with the
     * groups that read history: `accounts` (issue 41); `market` and `subnets` use it when set, for
     * reads at a block older than the newest points Redis keeps.
     */
    ...postgresVars,
    POSTGRES_URL: postgresVars.POSTGRES_URL.optional(),
    /** The `events` group reads the data change log's tail at least this often, whatever the signals say. */
    WATCH_POLL_MS: vars.positiveInt().default(1_000),
    /** A WatchData caller that leaves this many bytes unread is ended (RESOURCE_EXHAUSTED). */
    WATCH_MAX_BUFFERED_BYTES: vars.positiveInt().default(1024 * 1024),
    /**
     * A WatchData resume replays at most this many change-log entries; a position further behind
     * gets `gap` and the newest this many (the gateway charges replayed events to the key's budget).
     */
    WATCH_MAX_REPLAY_ENTRIES: vars.positiveInt().default(1_000),
  })
  .refine((config) => !config.DATA_QUERY_GROUPS.includes("events") || config.NATS_URL !== undefined, {
    error: "NATS_URL is required when DATA_QUERY_GROUPS lists events",
    path: ["NATS_URL"],
  })
  .superRefine(redisTopologyRule)
  .superRefine((config, context) => {
    if (readsHistory(config.DATA_QUERY_GROUPS) && config.POSTGRES_URL === undefined) {
      context.addIssue({
        code: "custom",
        path: ["POSTGRES_URL"],
        message: "is required when DATA_QUERY_GROUPS lists accounts",
      });
    }
  });

export type DataQueryConfig = z.infer<typeof dataQueryConfigSchema>;

export const loadDataQueryConfig = (env: NodeJS.ProcessEnv = process.env): DataQueryConfig =>
  loadConfigOrExit("data-query", dataQueryConfigSchema, env);
