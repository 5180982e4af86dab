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
});

export type DataQueryConfig = z.infer<typeof dataQueryConfigSchema>;

export const loadDataQueryConfig = (env: NodeJS.ProcessEnv = process.env): DataQueryConfig =>
  loadConfigOrExit("data-query", dataQueryConfigSchema, env);
