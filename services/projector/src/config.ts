import { loadConfigOrExit, vars } from "@platform/config";
import { serviceVars } from "@platform/service";
import { z } from "zod";

export const PROJECTIONS = ["intents", "accounts", "market", "subnets"] as const;

export const projectorConfigSchema = z.object({
  ...serviceVars,
  KAFKA_BROKERS: vars.hostPortList(),
  REDIS_URL: vars.url(["redis", "rediss"]),
  NATS_URL: vars.url(["nats", "tls"]),
  /** Projections this process runs, each its own consumer group, so they deploy and scale apart. */
  PROJECTIONS: vars
    .list()
    .refine((names) => names.every((name) => (PROJECTIONS as readonly string[]).includes(name)), {
      error: `must list projections among ${PROJECTIONS.join(", ")}`,
    })
    .transform((names) => [...new Set(names)] as Array<(typeof PROJECTIONS)[number]>),
});

export type ProjectorConfig = z.infer<typeof projectorConfigSchema>;

export const loadProjectorConfig = (env: NodeJS.ProcessEnv = process.env): ProjectorConfig =>
  loadConfigOrExit("projector", projectorConfigSchema, env);
