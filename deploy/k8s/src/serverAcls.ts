import { type Grant, PRINCIPALS, type Principal } from "@platform/grants";
import { redisAclRules } from "@platform/store";
import { DEPLOYABLES, NAMESPACE } from "./deployables.js";
import { serverPrincipalOf, serverSecretOf } from "./serverCredentials.js";

/** The principal of libs/grants each deployable connects to Redis and NATS as, with its grant. */
export function serverGrantOf(deployable: (typeof DEPLOYABLES)[number]): Grant | undefined {
  if (!deployable.uses.redis && !deployable.uses.nats) return undefined;
  return (PRINCIPALS as Readonly<Record<string, Grant | undefined>>)[serverPrincipalOf(deployable)];
}

/** The Redis users the Deployments connect as, each once, in the table's order. */
export function redisPrincipals(): Principal[] {
  const used = new Set(DEPLOYABLES.filter((deployable) => deployable.uses.redis).map(serverPrincipalOf));
  return (Object.keys(PRINCIPALS) as Principal[]).filter((name) => used.has(name));
}

/**
 * `redis-cli` commands that create or update every Deployment's Redis user with its grant, for an
 * operator to run as an admin (`pnpm --filter @platform/k8s redis-acls`). Each password is read
 * from the user's Secret and given to Redis as its SHA-256 (`#<hex>`), so neither the clear
 * password nor the Secret's value appears on a command line.
 */
export function redisAclCommands(): string[] {
  return redisPrincipals().map((name) => {
    const secret = serverSecretOf(name, "redis");
    const hash = `$(kubectl -n ${NAMESPACE} get secret ${secret} -o jsonpath='{.data.password}' | base64 -d | sha256sum | cut -d' ' -f1)`;
    const rules = redisAclRules(PRINCIPALS[name].redis!).map((rule) => `'${rule}'`);
    return ["redis-cli $REDIS_ADMIN_ARGS ACL SETUSER", name, "reset", "on", `"#${hash}"`, ...rules].join(" ");
  });
}
