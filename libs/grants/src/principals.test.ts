import { HISTORY_PRIVILEGES } from "@platform/history";
import { natsAuthorization } from "@platform/signals";
import { redisAclFile, redisAclRules } from "@platform/store";
import { describe, expect, it } from "vitest";
import { LOCAL_PRINCIPALS, PRINCIPAL_NAMES, PRINCIPALS } from "./principals.js";
import { natsUsersOf, principalsOn, redisUsersOf } from "./serverUsers.js";

/** The key patterns of a rendered rule list (`~pattern` and `%R~pattern`). */
const keyPatterns = (rules: readonly string[]) => rules.filter((rule) => /^(%R)?~/.test(rule));

describe("the projections' grants, rendered", () => {
  it("give each projection's Redis user its own prefix and the shared change log as one key", () => {
    const patterns = (name: keyof typeof PRINCIPALS) => keyPatterns(redisAclRules(PRINCIPALS[name].redis!));
    expect(patterns("projector-intents")).toEqual(["~rm:{intents}:*"]);
    expect(patterns("projector-accounts")).toEqual(["~rm:{data}:accounts:*", "~rm:{data}:changes"]);
    expect(patterns("projector-market")).toEqual(["~rm:{data}:market:*", "~rm:{data}:changes"]);
    expect(patterns("projector-subnets")).toEqual(["~rm:{data}:subnets:*", "~rm:{data}:changes"]);
  });

  it("give each projection's NATS user only its own change signal, and the projectors the `projector` role", () => {
    for (const projection of ["intents", "accounts", "market", "subnets"] as const) {
      const grant = PRINCIPALS[`projector-${projection}`];
      expect(grant.nats).toEqual({ publish: [`readmodel.changed.${projection}`], subscribe: [] });
      expect(grant.postgres).toBe("projector");
    }
  });

  it("give the local stack's one projector process the union of the four, and no wider pattern", () => {
    const local = LOCAL_PRINCIPALS.projector!;
    expect(keyPatterns(redisAclRules(local.redis!))).toEqual([
      "~rm:{intents}:*",
      "~rm:{data}:accounts:*",
      "~rm:{data}:changes",
      "~rm:{data}:market:*",
      "~rm:{data}:subnets:*",
    ]);
    expect(local.nats).toEqual({
      publish: [
        "readmodel.changed.intents",
        "readmodel.changed.accounts",
        "readmodel.changed.market",
        "readmodel.changed.subnets",
      ],
      subscribe: [],
    });
    expect(local.postgres).toBe("projector");
    expect(Object.keys(LOCAL_PRINCIPALS).filter((name) => name.startsWith("projector"))).toEqual(["projector"]);
  });

  it("grant nobody `rm:*` or a whole hash tag to write", () => {
    for (const [name, grant] of Object.entries({ ...PRINCIPALS, ...LOCAL_PRINCIPALS }))
      for (const pattern of grant.redis?.readWrite ?? [])
        expect(["rm:*", "rm:{data}:*", "*"], `${name} writes ${pattern}`).not.toContain(pattern);
  });
});

describe("the servers' users, rendered from the grant model", () => {
  it("writes one Redis ACL line and one NATS user per principal that has a grant there", () => {
    const password = (name: string) => `pw-${name}`;
    const acl = redisAclFile("admin-pw", redisUsersOf(PRINCIPALS, password));
    for (const name of principalsOn(PRINCIPALS, "redis")) expect(acl).toContain(`user ${name} on #`);
    expect(acl).not.toContain("user chain-ingestor");
    expect(acl).not.toContain("pw-");
    const nats = natsAuthorization("admin-pw", natsUsersOf(PRINCIPALS, password));
    for (const name of principalsOn(PRINCIPALS, "nats")) expect(nats).toContain(`user: "${name}"`);
    expect(nats).not.toContain('user: "auth"');
  });

  it("names a PostgreSQL role with privileges for every principal that logs in there", () => {
    const roles = PRINCIPAL_NAMES.flatMap((name) => {
      const role = PRINCIPALS[name].postgres;
      return role === undefined ? [] : [role];
    });
    expect(new Set(roles)).toEqual(new Set(Object.keys(HISTORY_PRIVILEGES)));
  });
});
