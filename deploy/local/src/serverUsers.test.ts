import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@platform/testing";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_PORTS } from "./ports.js";
import {
  serviceCredentialEnv,
  writeNatsUsers,
  writePgpass,
  writePostgresUsers,
  writeRedisUsers,
} from "./serverUsers.js";
import { serviceProcessSpecs } from "./serviceProcesses.js";

const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

function secretsDir(): string {
  const dir = tempDir("stack-secrets");
  dirs.push(dir);
  return join(dir.path, "secrets");
}

const infra = (secrets: string) => ({
  kafkaBrokers: ["127.0.0.1:19092"],
  redisUrl: "redis://127.0.0.1:16379",
  natsUrl: "nats://127.0.0.1:14222",
  postgresUrl: "postgres://127.0.0.1:15432/platform",
  chainsFile: "/tmp/chains.json",
  secretsDir: secrets,
});

describe("the history database's users", () => {
  it("are owner-only files, and the PGPASSFILE has a line per role for psql", () => {
    const secrets = secretsDir();
    const users = writePostgresUsers(secrets, true);
    const pgpass = writePgpass(secrets, users, "postgres://127.0.0.1:15432/platform");
    for (const file of [
      pgpass,
      join(secrets, "admin-postgres", "password"),
      join(secrets, "history-owner-postgres", "password"),
      join(secrets, "projector-postgres", "password"),
      join(secrets, "data-query-postgres", "password"),
    ])
      expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(secrets, "data-query-postgres", "password"), "utf8")).toBe(users.passwords.data_query);
    expect(readFileSync(pgpass, "utf8").trim().split("\n")).toEqual([
      `127.0.0.1:15432:*:postgres:${users.superuserPassword}`,
      `127.0.0.1:15432:*:history_owner:${users.passwords.history_owner}`,
      `127.0.0.1:15432:*:projector:${users.passwords.projector}`,
      `127.0.0.1:15432:*:data_query:${users.passwords.data_query}`,
    ]);
  });

  it("an external server's superuser is not the stack's: no admin password is made", () => {
    const users = writePostgresUsers(secretsDir(), false);
    expect(users.superuserPassword).toBeUndefined();
  });

  it("go to the projector and data-query as their own roles, and to no other service", () => {
    const secrets = secretsDir();
    const users = writePostgresUsers(secrets, true);
    const specs = serviceProcessSpecs(DEFAULT_PORTS, infra(secrets), "info");
    const postgresEnv = Object.fromEntries(
      specs.map((spec) => [
        spec.name,
        Object.fromEntries(Object.entries(spec.env).filter(([name]) => name.startsWith("POSTGRES_"))),
      ]),
    );
    expect(postgresEnv).toEqual({
      auth: {},
      tc: {},
      "data-query": {
        POSTGRES_URL: "postgres://127.0.0.1:15432/platform",
        POSTGRES_USERNAME: "data_query",
        POSTGRES_PASSWORD: users.passwords.data_query,
      },
      "intents-gateway": {},
      projector: {
        POSTGRES_URL: "postgres://127.0.0.1:15432/platform",
        POSTGRES_USERNAME: "projector",
        POSTGRES_PASSWORD: users.passwords.projector,
      },
      "chain-ingestor": {},
      gateway: {},
    });
    // A service whose environment names no history database gets no role, whatever is on disk.
    expect(serviceCredentialEnv(secrets, "projector", {})).toEqual({});
  });
});

describe("the Redis and NATS users", () => {
  it("give the one projector process the union of the projections' grants, and no wider key pattern", () => {
    const secrets = secretsDir();
    const acl = readFileSync(writeRedisUsers(secrets).serverFile, "utf8");
    const projector = acl.split("\n").find((line) => line.startsWith("user projector "))!;
    expect(projector.split(" ").filter((rule) => rule.startsWith("~"))).toEqual([
      "~rm:{intents}:*",
      "~rm:{data}:accounts:*",
      "~rm:{data}:changes",
      "~rm:{data}:market:*",
      "~rm:{data}:subnets:*",
    ]);
    // One process, one user: the per-projection users are Kubernetes'.
    expect(acl).not.toMatch(/^user projector-/m);
    const nats = readFileSync(writeNatsUsers(secrets).serverFile, "utf8");
    expect(nats).toMatch(
      /user: "projector".*allow: \["readmodel.changed.intents", "readmodel.changed.accounts", "readmodel.changed.market", "readmodel.changed.subnets"\]/,
    );
    expect(statSync(join(secrets, "projector-redis", "password")).mode & 0o777).toBe(0o600);
  });
});
