import { loadConfigOrExit, vars } from "@platform/config";
import { serviceVars } from "@platform/service";
import { z } from "zod";

export const DATA_QUERY_GROUPS = ["accounts", "market", "subnets"] as const;

export const dataQueryConfigSchema = z.object({
  ...serviceVars,
  REDIS_URL: vars.url(["redis", "rediss"]),
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
});

export type DataQueryConfig = z.infer<typeof dataQueryConfigSchema>;

export const loadDataQueryConfig = (env: NodeJS.ProcessEnv = process.env): DataQueryConfig =>
  loadConfigOrExit("data-query", dataQueryConfigSchema, env);
