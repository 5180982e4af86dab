import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { StackDescriptor } from "./descriptor.js";
import { repoRoot } from "./paths.js";
import { DEFAULT_PORTS } from "./ports.js";
import { renderSummary, withoutPassword } from "./summary.js";

const descriptor: StackDescriptor = {
  startedAt: "2026-11-29T11:00:00.000Z",
  gatewayUrl: "http://127.0.0.1:8080",
  chains: [],
  infrastructure: {
    kafkaBrokers: ["127.0.0.1:19092"],
    redisUrl: "redis://127.0.0.1:16379",
    natsUrl: "nats://127.0.0.1:14222",
    postgresUrl: "postgres://127.0.0.1:15432/platform",
    redisAdminUrl: "redis://admin:redis-admin-password@127.0.0.1:16379",
    natsAdminUrl: "nats://admin:nats-admin-password@127.0.0.1:14222",
  },
  processes: [],
  stateDir: "/tmp/stack",
};

describe("the stack's summary", () => {
  it("shows the servers' addresses and where the credentials are, never a password", () => {
    const summary = renderSummary(descriptor);
    expect(summary).toContain("redis redis://127.0.0.1:16379");
    expect(summary).toContain("nats nats://127.0.0.1:14222");
    expect(summary).toContain("/tmp/stack/secrets/<service>-redis/password");
    expect(summary).not.toMatch(/admin-password/);
  });

  it("shows the history database and a psql line that reads its password from the PGPASSFILE", () => {
    const summary = renderSummary(descriptor);
    expect(summary).toContain("postgres postgres://127.0.0.1:15432/platform");
    expect(summary).toContain("/tmp/stack/secrets/<service>-postgres/password");
    expect(summary).toContain(
      "PGPASSFILE=/tmp/stack/secrets/postgres-client/pgpass psql 'postgres://data_query@127.0.0.1:15432/platform'",
    );
    const { postgresUrl: _, ...withoutHistory } = descriptor.infrastructure;
    expect(renderSummary({ ...descriptor, infrastructure: withoutHistory })).not.toContain("postgres");
  });

  it("masks a password in an external server's URL", () => {
    const external = {
      ...descriptor,
      infrastructure: {
        kafkaBrokers: ["kafka:9092"],
        redisUrl: "rediss://ops:s3cret@redis.internal:6380",
        natsUrl: "nats://nats.internal:4222",
      },
    };
    const summary = renderSummary(external);
    expect(summary).not.toContain("s3cret");
    expect(summary).toContain("rediss://ops:***@redis.internal:6380");
    expect(withoutPassword("not a url://a:b@c")).not.toContain(":b@");
  });
});

describe("the summary of a stack that runs its own devnet", () => {
  const devnet: StackDescriptor = {
    ...descriptor,
    processes: [{ name: "anvil-origin", pid: 1, logFile: "/tmp/stack/logs/anvil-origin.log" }],
    substrate: {
      name: "bittensor",
      chainId: 945,
      rpcUrl: "ws://127.0.0.1:19944",
      httpUrl: "http://127.0.0.1:19944",
      blockTimeMs: 2_000,
      specVersion: 218,
      demoAccounts: [],
      netuids: [1],
    },
  };

  it("documents the faucet command with its defaults, and where the deployment data is", () => {
    const summary = renderSummary(devnet);
    expect(summary).toContain(
      "deploy/local/stack fund <0x address | SS58 address> [--usdc N] [--eth N] [--tao N] [--chain NAME|ID]",
    );
    expect(summary).toContain("1000 USDC and 10 ETH on every anvil chain for a 0x address, 100 TAO for an SS58 one");
    expect(summary).toContain("Deployment  /tmp/stack/deployment.v1.json");
  });

  it("offers no faucet for chains given from outside (no anvil of its own)", () => {
    const summary = renderSummary(descriptor);
    expect(summary).not.toContain("stack fund");
    expect(summary).not.toContain("deployment.v1.json");
  });
});

describe("the client README's intents quickstart", () => {
  it("defaults to the URLs of a stack started with the default ports", () => {
    const readme = readFileSync(join(repoRoot, "libs/client/README.md"), "utf8");
    expect(readme).toContain(`env("API_URL", "http://127.0.0.1:${DEFAULT_PORTS.gateway}")`);
    expect(readme).toContain(`env("ORIGIN_RPC_URL", "http://127.0.0.1:${DEFAULT_PORTS.anvilOrigin}")`);
  });
});
