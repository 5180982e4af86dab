import { PRINCIPALS } from "@platform/grants";
import { expect, test } from "vitest";
import { DEPLOYABLES } from "./deployables.js";
import { redisAclCommands, redisPrincipals, serverGrantOf } from "./serverAcls.js";
import { serverCredentialEnv } from "./serverCredentials.js";

const byName = (name: string) => DEPLOYABLES.find((deployable) => deployable.name === name)!;

test("each projector Deployment connects to Redis and NATS as its projection's own user", () => {
  for (const projection of ["intents", "accounts", "market", "subnets"]) {
    const env = serverCredentialEnv(byName(`projector-${projection}`));
    expect(env).toMatchObject({
      REDIS_USERNAME: `projector-${projection}`,
      REDIS_PASSWORD: { secretKey: { name: `projector-${projection}-redis`, key: "password" } },
      NATS_USERNAME: `projector-${projection}`,
      NATS_PASSWORD: { secretKey: { name: `projector-${projection}-nats`, key: "password" } },
    });
  }
  expect(serverCredentialEnv(byName("data-query-market")).REDIS_USERNAME).toBe("data-query");
});

test("every Deployment's Redis and NATS user has a grant there in the grant model, and its PostgreSQL role is the model's", () => {
  for (const deployable of DEPLOYABLES) {
    const grant = serverGrantOf(deployable);
    if (!deployable.uses.redis && !deployable.uses.nats) continue;
    expect(grant, deployable.name).toBeDefined();
    if (deployable.uses.redis) expect(grant?.redis, `${deployable.name} redis`).toBeDefined();
    if (deployable.uses.nats) expect(grant?.nats, `${deployable.name} nats`).toBeDefined();
    if (deployable.uses.postgres) expect(grant?.postgres, `${deployable.name} postgres`).toBe(deployable.uses.postgres);
  }
});

test("the redis-cli commands give each user its grant, the password only as a hash read from its Secret", () => {
  const commands = redisAclCommands();
  expect(redisPrincipals()).not.toContain("projector");
  const market = commands.find((command) => command.includes(" ACL SETUSER projector-market "))!;
  expect(market).toContain("'~rm:{data}:market:*' '~rm:{data}:changes'");
  expect(market).toContain("kubectl -n platform get secret projector-market-redis");
  expect(market).not.toContain("'~rm:*'");
  expect(commands).toHaveLength(Object.keys(PRINCIPALS).filter((name) => name !== "chain-ingestor").length);
});
