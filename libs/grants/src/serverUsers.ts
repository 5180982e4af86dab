import type { NatsUserEntry } from "@platform/signals";
import type { RedisUserEntry } from "@platform/store";
import type { Grant } from "./grant.js";

/** The principals of a set that have a user on `server`, in the set's order. */
export function principalsOn(principals: Readonly<Record<string, Grant>>, server: "redis" | "nats"): string[] {
  return Object.keys(principals).filter((name) => principals[name]![server] !== undefined);
}

/**
 * The Redis users of a set of principals (for @platform/store redisAclFile, or `ACL SETUSER` with
 * redisAclRules), each with the password `passwordOf` gives it.
 */
export function redisUsersOf(
  principals: Readonly<Record<string, Grant>>,
  passwordOf: (principal: string) => string,
): RedisUserEntry[] {
  return principalsOn(principals, "redis").map((name) => ({
    name,
    password: passwordOf(name),
    grant: principals[name]!.redis!,
  }));
}

/** The NATS users of a set of principals (for @platform/signals natsAuthorization). */
export function natsUsersOf(
  principals: Readonly<Record<string, Grant>>,
  passwordOf: (principal: string) => string,
): NatsUserEntry[] {
  return principalsOn(principals, "nats").map((name) => ({
    name,
    password: passwordOf(name),
    grant: principals[name]!.nats!,
  }));
}
