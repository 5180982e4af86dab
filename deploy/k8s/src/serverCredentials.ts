import type { Deployable, EnvValue } from "./deployable.js";

/**
 * Each deployable's own user on Redis and NATS, a principal of libs/grants (PRINCIPALS): the
 * projector's Deployments each have one of their own, named after the Deployment
 * (`projector-market`: only its projection's keys and change signal); every other service's
 * Deployments share the service's (the data-query groups read the same read models, the ingestor
 * sources' NATS user is the intents source's). Its password comes from a Secret of its own,
 * `<user>-redis` / `<user>-nats`, key `password`, which operators create (README, Secrets). The
 * servers' addresses stay in the ConfigMap.
 */
export const serverSecretOf = (principal: string, server: "redis" | "nats") => `${principal}-${server}`;

/** The principal (server user) a deployable connects to Redis and NATS as. */
export function serverPrincipalOf(deployable: Deployable): string {
  return deployable.service === "projector" ? deployable.name : deployable.service;
}

export function serverCredentialEnv(deployable: Deployable): Record<string, EnvValue> {
  const env: Record<string, EnvValue> = {};
  const principal = serverPrincipalOf(deployable);
  if (deployable.uses.redis) {
    env.REDIS_USERNAME = principal;
    env.REDIS_PASSWORD = { secretKey: { name: serverSecretOf(principal, "redis"), key: "password" } };
  }
  if (deployable.uses.nats) {
    env.NATS_USERNAME = principal;
    env.NATS_PASSWORD = { secretKey: { name: serverSecretOf(principal, "nats"), key: "password" } };
  }
  return env;
}

/** The Secrets `serverCredentialEnv` refers to. */
export function serverSecretsOf(deployable: Deployable): string[] {
  const principal = serverPrincipalOf(deployable);
  return [
    ...(deployable.uses.redis ? [serverSecretOf(principal, "redis")] : []),
    ...(deployable.uses.nats ? [serverSecretOf(principal, "nats")] : []),
  ];
}
