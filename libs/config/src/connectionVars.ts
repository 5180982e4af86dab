import { z } from "zod";
import { vars } from "./vars.js";

/**
 * Each service's own credentials on the shared servers (its Redis ACL user, its NATS user): in
 * their own variables, so the addresses stay plain configuration and only these come from a Secret.
 * Unset, the service connects without credentials (a server without users).
 */
export const redisCredentialVars = {
  REDIS_USERNAME: vars.string().optional(),
  REDIS_PASSWORD: vars.string().optional(),
};

export const natsCredentialVars = {
  NATS_USERNAME: vars.string().optional(),
  NATS_PASSWORD: vars.string().optional(),
};

/**
 * Which Redis topology the service talks to (libs/store createRedis). `standalone` (the default)
 * connects to REDIS_URL; `cluster` to a Redis Cluster through any of REDIS_NODES; `sentinel` to the
 * primary the REDIS_SENTINELS monitor under REDIS_SENTINEL_NAME, followed across failovers.
 * `redisTopologyRule` checks that what a mode needs is set.
 */
export const redisTopologyVars = {
  REDIS_URL: vars.url(["redis", "rediss"]).optional(),
  REDIS_MODE: z
    .enum(["standalone", "cluster", "sentinel"], { error: "must be standalone, cluster or sentinel" })
    .default("standalone"),
  REDIS_NODES: vars.hostPortList().optional(),
  REDIS_SENTINELS: vars.hostPortList().optional(),
  REDIS_SENTINEL_NAME: vars.string().optional(),
  /** TLS to every node (and Sentinel): what `rediss://` does for REDIS_URL, for the cluster and Sentinel modes too. */
  REDIS_TLS: vars.boolean().default(false),
  /** PEM file of the CA that signed the servers' certificates (a private CA), instead of the system's. */
  REDIS_TLS_CA_FILE: vars.string().optional(),
};

/**
 * REDIS_READ_FROM=replicas (cluster only) sends read-only commands to replicas (READONLY). Only for
 * a service that only reads and whose answers stay correct on data a little behind (data-query's
 * answers carry their as_of); never for a writer, whose WATCH and offset reads need the primary.
 */
export const redisReadFromVars = {
  REDIS_READ_FROM: z.enum(["primary", "replicas"], { error: "must be primary or replicas" }).default("primary"),
};

interface RedisTopology {
  REDIS_URL?: string | undefined;
  REDIS_MODE: "standalone" | "cluster" | "sentinel";
  REDIS_NODES?: string[] | undefined;
  REDIS_SENTINELS?: string[] | undefined;
  REDIS_SENTINEL_NAME?: string | undefined;
  REDIS_READ_FROM?: "primary" | "replicas";
}

/** The rule between the topology variables, for a schema's superRefine: each mode's own variables are set, no other mode's. */
export function redisTopologyRule(config: RedisTopology, context: z.RefinementCtx): void {
  const need = (variable: keyof RedisTopology, set: boolean, message: string) => {
    if (!set) context.addIssue({ code: "custom", path: [variable], message });
  };
  const mode = config.REDIS_MODE;
  need(
    "REDIS_URL",
    mode !== "standalone" || config.REDIS_URL !== undefined,
    "is required when REDIS_MODE is standalone",
  );
  need("REDIS_NODES", mode !== "cluster" || config.REDIS_NODES !== undefined, "is required when REDIS_MODE is cluster");
  need(
    "REDIS_SENTINELS",
    mode !== "sentinel" || config.REDIS_SENTINELS !== undefined,
    "is required when REDIS_MODE is sentinel",
  );
  need(
    "REDIS_SENTINEL_NAME",
    mode !== "sentinel" || config.REDIS_SENTINEL_NAME !== undefined,
    "is required when REDIS_MODE is sentinel",
  );
  need(
    "REDIS_NODES",
    mode === "cluster" || config.REDIS_NODES === undefined,
    "is read only when REDIS_MODE is cluster",
  );
  need(
    "REDIS_SENTINELS",
    mode === "sentinel" || config.REDIS_SENTINELS === undefined,
    "is read only when REDIS_MODE is sentinel",
  );
  need(
    "REDIS_READ_FROM",
    mode === "cluster" || config.REDIS_READ_FROM !== "replicas",
    "replicas is possible only when REDIS_MODE is cluster",
  );
}

/**
 * For a service whose Redis transactions cannot keep to one hash slot yet (auth's registry and tc's
 * acceptances commit many records with their offsets in one MULTI): REDIS_MODE=cluster is refused
 * at start, with the reason, instead of every commit failing with CROSSSLOT later.
 */
export function redisClusterUnsupported(why: string) {
  return (config: Pick<RedisTopology, "REDIS_MODE">, context: z.RefinementCtx): void => {
    if (config.REDIS_MODE === "cluster")
      context.addIssue({
        code: "custom",
        path: ["REDIS_MODE"],
        message: `cluster is not supported by this service yet (${why}): use standalone or sentinel`,
      });
  };
}

/**
 * Where the history database is (PostgreSQL, libs/history) and the service's own role there: the
 * URL carries no credentials, which come from their own variables (a Secret), like Redis's and
 * NATS's. POSTGRES_POOL_SIZE bounds the service's connections (8 by default).
 */
export const postgresVars = {
  POSTGRES_URL: vars.url(["postgres", "postgresql"]),
  POSTGRES_USERNAME: vars.string().optional(),
  POSTGRES_PASSWORD: vars.string().optional(),
  POSTGRES_POOL_SIZE: vars.positiveInt().default(8),
};
