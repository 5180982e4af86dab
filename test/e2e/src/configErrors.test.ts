import { spawnSync } from "node:child_process";
import { repoRoot, type ServiceName, serviceCommand, testRuntime } from "@platform/local-stack";
import { describe, expect, it } from "vitest";

/** Runs a service with exactly the given environment and returns how it ended. */
function runWith(name: ServiceName, env: Record<string, string>) {
  const { command, args } = serviceCommand(repoRoot, name, testRuntime());
  const result = spawnSync(command, args, {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { status: result.status, stderr: result.stderr.trim(), stdout: result.stdout.trim() };
}

const valid = {
  REDIS_URL: "redis://127.0.0.1:1",
  KAFKA_BROKERS: "127.0.0.1:1",
  NATS_URL: "nats://127.0.0.1:1",
};

/** The history database, which only the accounts projection and data-query's accounts group need. */
const history = { POSTGRES_URL: "postgres://127.0.0.1:1/platform" };

/** A complete tc configuration; rows override one variable. */
const tcSiwe = {
  TC_CURRENT_VERSION: "1",
  // Relative to the working directory the rows run services in (the repository root).
  CHAINS_FILE: "deploy/config/local/chains.json",
  SIWE_DOMAIN: "127.0.0.1:8080",
  SIWE_URI: "http://127.0.0.1:8080",
  SIWE_CHAIN_IDS: "31337,31338",
};

describe("a service with bad configuration exits at once, naming the variable", () => {
  it.each<[ServiceName, Record<string, string>, string]>([
    // The first variable of its own that a service misses; REDIS_URL's rule (required only when
    // REDIS_MODE is standalone, the default) is checked once every variable has a value.
    ["gateway", {}, "AUTH_GRPC_TARGET"],
    ["auth", {}, "KAFKA_BROKERS"],
    ["data-query", { DATA_QUERY_GROUPS: "accounts" }, "REDIS_URL"],
    ["auth", { ...valid }, "AUTH_PEPPER_FILE"],
    ["auth", { ...valid, AUTH_PEPPER_FILE: "/nonexistent/pepper" }, "AUTH_SIGNING_KEYS_DIR"],
    ["tc", { ...valid }, "TC_CURRENT_VERSION"],
    ["tc", { ...valid, TC_CURRENT_VERSION: "1" }, "CHAINS_FILE"],
    ["tc", { ...valid, TC_CURRENT_VERSION: "1", CHAINS_FILE: "/nonexistent/chains.json" }, "SIWE_DOMAIN"],
    ["data-query", { REDIS_URL: valid.REDIS_URL }, "DATA_QUERY_GROUPS"],
    ["intents-gateway", { ...valid, TC_GRPC_TARGET: "127.0.0.1:1" }, "CHAINS_FILE"],
    ["chain-ingestor", { KAFKA_BROKERS: valid.KAFKA_BROKERS }, "CHAINS_FILE"],
    // NATS is needed only by the intents source, which runs unless INGEST_SOURCES leaves it out.
    [
      "chain-ingestor",
      { KAFKA_BROKERS: valid.KAFKA_BROKERS, CHAINS_FILE: "deploy/config/local/chains.json" },
      "NATS_URL",
    ],
    ["projector", { ...valid }, "PROJECTIONS"],
    // The history database (issue 41) only for what reads or writes history: the accounts group and projection.
    ["data-query", { REDIS_URL: valid.REDIS_URL, DATA_QUERY_GROUPS: "market,accounts" }, "POSTGRES_URL"],
    ["projector", { ...valid, PROJECTIONS: "market,accounts" }, "POSTGRES_URL"],
  ])("%s without %j set names %s", (name, env, variable) => {
    const result = runWith(name, env);
    expect(result.status).toBe(78);
    const lines = result.stderr.split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(`${name}: configuration error: ${variable}: is required but not set`);
  });

  it.each<[ServiceName, Record<string, string>, string, RegExp]>([
    ["tc", { ...valid, TC_CURRENT_VERSION: "1", GRPC_PORT: "eighty" }, "GRPC_PORT", /must be a TCP port/],
    ["tc", { ...valid, TC_CURRENT_VERSION: "-2" }, "TC_CURRENT_VERSION", /positive whole number/],
    ["tc", { ...valid, ...tcSiwe, SIWE_DOMAIN: "http://127.0.0.1:8080" }, "SIWE_DOMAIN", /RFC 3986 authority/],
    ["tc", { ...valid, ...tcSiwe, SIWE_CHAIN_IDS: "31337,abc" }, "SIWE_CHAIN_IDS", /positive chain ids/],
    ["tc", { ...valid, ...tcSiwe, CHAINS_FILE: "/nonexistent/chains.json" }, "CHAINS_FILE", /nonexistent/],
    ["tc", { ...valid, ...tcSiwe, SIWE_CHAIN_IDS: "31337,1" }, "SIWE_CHAIN_IDS", /not chains of CHAINS_FILE/],
    ["tc", { ...valid, ...tcSiwe, SIWE_STATEMENT: "100% agreed" }, "SIWE_STATEMENT", /EIP-4361 allows/],
    ["auth", { ...valid, REDIS_URL: "http://127.0.0.1:6379" }, "REDIS_URL", /scheme redis/],
    ["auth", { ...valid, KAFKA_BROKERS: "localhost" }, "KAFKA_BROKERS", /host:port/],
    [
      "auth",
      { ...valid, AUTH_PEPPER_FILE: "/nonexistent/pepper", AUTH_SIGNING_KEYS_DIR: "/nonexistent/keys" },
      "AUTH_PEPPER_FILE",
      /nonexistent\/pepper/,
    ],
    [
      "auth",
      {
        ...valid,
        AUTH_PEPPER_FILE: "/nonexistent/pepper",
        AUTH_SIGNING_KEYS_DIR: "/nonexistent/keys",
        AUTH_TIERS: "free",
        AUTH_DEFAULT_TIER: "gold",
      },
      "AUTH_DEFAULT_TIER",
      /one of AUTH_TIERS/,
    ],
    [
      "data-query",
      { REDIS_URL: valid.REDIS_URL, DATA_QUERY_GROUPS: "accounts,prices" },
      "DATA_QUERY_GROUPS",
      /among accounts, market, subnets/,
    ],
    ["projector", { ...valid, PROJECTIONS: "intents", LOG_LEVEL: "loud" }, "LOG_LEVEL", /pino level/],
    [
      "data-query",
      { REDIS_URL: valid.REDIS_URL, DATA_QUERY_GROUPS: "accounts", POSTGRES_URL: "mysql://127.0.0.1:3306/platform" },
      "POSTGRES_URL",
      /scheme postgres or postgresql/,
    ],
    ["chain-ingestor", { ...valid, CHAINS_FILE: "/nonexistent/chains.json" }, "CHAINS_FILE", /nonexistent/],
    // A Kafka user without a password, or a password file that cannot be read, stops the service at once.
    [
      "projector",
      { ...valid, PROJECTIONS: "accounts", ...history, KAFKA_SASL_USERNAME: "projector" },
      "KAFKA_SASL_PASSWORD",
      /or KAFKA_SASL_PASSWORD_FILE is required with KAFKA_SASL_USERNAME/,
    ],
    [
      "tc",
      { ...valid, ...tcSiwe, KAFKA_SASL_USERNAME: "tc", KAFKA_SASL_PASSWORD_FILE: "/nonexistent/kafka-password" },
      "KAFKA_SASL_PASSWORD_FILE",
      /cannot read \/nonexistent\/kafka-password: ENOENT/,
    ],
  ])("%s with a malformed %s names it", (name, env, variable, problem) => {
    const result = runWith(name, env);
    expect(result.status).toBe(78);
    const lines = result.stderr.split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]!.startsWith(`${name}: configuration error: ${variable}: `)).toBe(true);
    expect(lines[0]).toMatch(problem);
  });
});
