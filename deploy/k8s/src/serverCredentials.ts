import type { Deployable, EnvValue } from "./deployable.js";

/**
 * Each service's own user on Redis and NATS (libs/store redisAcl.ts, libs/signals
 * natsPermissions.ts): the user is named after the service, and its password comes from a Secret
 * of that service's own, `<service>-redis` / `<service>-nats`, key `password`, which operators
 * create (README, Secrets). The servers' addresses stay in the ConfigMap. Deployables of one
 * service (the data-query groups, the projections, the ingestor sources) share its user.
 */
export const serverSecretOf = (service: string, server: "redis" | "nats") => `${service}-${server}`;

export function serverCredentialEnv(deployable: Deployable): Record<string, EnvValue> {
  const env: Record<string, EnvValue> = {};
  if (deployable.uses.redis) {
    env.REDIS_USERNAME = deployable.service;
    env.REDIS_PASSWORD = { secretKey: { name: serverSecretOf(deployable.service, "redis"), key: "password" } };
  }
  if (deployable.uses.nats) {
    env.NATS_USERNAME = deployable.service;
    env.NATS_PASSWORD = { secretKey: { name: serverSecretOf(deployable.service, "nats"), key: "password" } };
  }
  return env;
}

/** The Secrets `serverCredentialEnv` refers to. */
export function serverSecretsOf(deployable: Deployable): string[] {
  return [
    ...(deployable.uses.redis ? [serverSecretOf(deployable.service, "redis")] : []),
    ...(deployable.uses.nats ? [serverSecretOf(deployable.service, "nats")] : []),
  ];
}
