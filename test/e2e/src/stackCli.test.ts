import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { freePorts, portVariable, readDescriptor, repoRoot, type PortPlan, type StackDescriptor } from "@platform/local-stack";
import { createRedis } from "@platform/store";
import { isAlive, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The README's run command, end to end: the CLI brings every process up detached on free ports in
// a temporary state folder, the gateway answers through the services, and `stop` ends them all.
const state = tempDir("stack-cli");
let ports: PortPlan;
let descriptor: StackDescriptor;

function cli(command: string, timeout = 280_000) {
  const env: NodeJS.ProcessEnv = { ...process.env, STACK_STATE_DIR: state.path, STACK_LOG_LEVEL: "info" };
  for (const [name, port] of Object.entries(ports)) env[portVariable(name as keyof PortPlan)] = String(port);
  const result = spawnSync(join(repoRoot, "node_modules/.bin/tsx"), ["--conditions=@platform/source", "deploy/local/src/cli.ts", command], {
    cwd: repoRoot,
    env,
    encoding: "utf8",
    timeout,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

beforeAll(async () => {
  ports = await freePorts();
  const up = cli("up");
  if (up.status !== 0) process.stderr.write(up.output);
  expect(up.output).toContain("stack ready");
  expect(up.status).toBe(0);
  descriptor = readDescriptor(state.path)!;
}, 300_000);

afterAll(() => {
  cli("stop", 120_000);
  state.remove();
}, 150_000);

describe("deploy/local/stack", () => {
  it("writes the descriptor with the gateway, every chain and every process", () => {
    expect(descriptor.gatewayUrl).toBe(`http://127.0.0.1:${ports.gateway}`);
    expect(descriptor.chains.map((chain) => chain.name).sort()).toEqual(["destination", "origin", "subtensor"]);
    for (const chain of descriptor.chains) {
      expect(chain.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(chain.contracts.multicall3).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(chain.contracts.walletFactory).toMatch(/^0x[0-9a-fA-F]{40}$/);
    }
    for (const chain of descriptor.chains.filter((candidate) => candidate.name !== "subtensor")) {
      expect(chain.contracts.fullSettler).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(Object.keys(chain.tokens).sort()).toEqual(["USDC", "WETH"]);
    }
    const names = descriptor.processes.map((entry) => entry.name);
    for (const name of ["kafka", "redis", "nats", "anvil-origin", "anvil-destination", "anvil-subtensor", "auth", "tc", "data-query", "intents-gateway", "projector", "chain-ingestor", "gateway"]) {
      expect(names).toContain(name);
    }
  });

  it("runs the real Subtensor runtime, seeded, and names its RPC and demo accounts", async () => {
    const substrate = descriptor.substrate!;
    expect(substrate).toMatchObject({ name: "bittensor", chainId: 945, specVersion: 218, rpcUrl: `ws://127.0.0.1:${ports.subtensorNode}` });
    expect(substrate.netuids.length).toBeGreaterThanOrEqual(3);
    const rpc = async <T>(method: string, params: unknown[] = []) =>
      ((await (await fetch(substrate.httpUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) })).json()) as { result: T }).result;
    expect((await rpc<{ specName: string; specVersion: number }>("state_getRuntimeVersion")).specVersion).toBe(218);
    // Blocks keep coming on the timer.
    const before = Number((await rpc<{ number: string }>("chain_getHeader")).number);
    await waitFor(async () => Number((await rpc<{ number: string }>("chain_getHeader")).number) > before, { what: "a new native block", timeoutMs: 20_000, intervalMs: 250 });
    const evm = substrate.demoAccounts.find((account) => account.role === "evm")!;
    expect(evm.evmH160).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(substrate.demoAccounts.filter((account) => account.role === "coldkey").length).toBeGreaterThanOrEqual(2);
    expect(descriptor.processes.map((entry) => entry.name)).toContain("subtensor");
  });

  it("answers /readyz 200 listing every backend as ready", async () => {
    const response = await fetch(`${descriptor.gatewayUrl}/readyz`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; checks: Record<string, { ok: boolean }> };
    expect(body.status).toBe("ready");
    expect(Object.keys(body.checks).sort()).toEqual(
      ["grpc:auth", "grpc:data-accounts", "grpc:data-market", "grpc:data-subnets", "grpc:intents", "grpc:tc", "redis"].sort(),
    );
    expect(Object.values(body.checks).every((check) => check.ok)).toBe(true);
  });

  it("seeds a demo key with every scope", () => {
    expect(descriptor.demoApiKey?.id).toMatch(/^ak_/);
    expect(descriptor.demoApiKey?.secret).toMatch(/^sk_/);
    expect(descriptor.demoApiKey?.scopes.sort()).toEqual(["data:read", "intents:read", "intents:write"]);
  });

  async function accessToken(): Promise<string> {
    const auth = await fetch(`${descriptor.gatewayUrl}/auth`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "API_KEY", username: descriptor.demoApiKey!.id, password: descriptor.demoApiKey!.secret }),
    });
    expect(auth.status).toBe(200);
    return ((await auth.json()) as { access_token: string }).access_token;
  }

  it("carries a request through the gateway to a service over gRPC, which reads Redis", async () => {
    const wallet = "0x52908400098527886E0F7030069857D2E4169EE7";
    const redis = createRedis({ url: descriptor.infrastructure.redisUrl, connectionName: "e2e" });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await redis.hset(`tc:wallet:${wallet}`, { acceptedVersion: "1", acceptedAt: "2026-11-20T08:00:00.000Z" });
    redis.disconnect();

    const token = await accessToken();

    const url = `${descriptor.gatewayUrl}/intents/v1/tc/status?walletAddress=${wallet.toLowerCase()}`;
    expect((await fetch(url)).status).toBe(401);
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      walletAddress: wallet,
      currentTcVersion: 1,
      acceptedVersion: 1,
      accepted: true,
      acceptedAt: "2026-11-20T08:00:00.000Z",
      _links: { self: { href: `/intents/v1/tc/status?walletAddress=${wallet}` } },
    });

    const invalid = await fetch(`${descriptor.gatewayUrl}/intents/v1/tc/status?walletAddress=0x1234`, { headers: { authorization: `Bearer ${token}` } });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await invalid.json()).toMatchObject({ status: 400, code: "INVALID_ADDRESS", type: expect.stringMatching(/\/problems\/invalid-address$/), title: "Invalid address" });
  });

  it("returns unknown paths as problem+json", async () => {
    const unknown = await fetch(`${descriptor.gatewayUrl}/data/v1/nothing-here`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ status: 404, code: "NOT_FOUND" });
  });

  it("serves the OpenAPI document and the reference page", async () => {
    const openapi = (await (await fetch(`${descriptor.gatewayUrl}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(openapi.openapi).toBe("3.1.0");
    expect(Object.keys(openapi.paths)).toContain("/intents/v1/tc/status");
    const docs = await fetch(`${descriptor.gatewayUrl}/docs`);
    expect(docs.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await docs.text()).toContain("/intents/v1/tc/status");
    const metrics = await (await fetch(`${descriptor.gatewayUrl}/metrics`)).text();
    expect(metrics).toContain("http_request_duration_seconds");
  });

  it("reports status", () => {
    expect(cli("status").status).toBe(0);
  });

  it("stays ready with one backend down: only that backend's routes answer 503", async () => {
    const token = await accessToken();
    const tc = descriptor.processes.find((entry) => entry.name === "tc")!;
    process.kill(tc.pid, "SIGTERM");
    await waitFor(async () => !isAlive(tc.pid), { what: "tc gone", timeoutMs: 30_000, intervalMs: 100 });
    const readiness = await waitFor(
      async () => {
        const response = await fetch(`${descriptor.gatewayUrl}/readyz`);
        const body = (await response.json()) as { status: string; checks: Record<string, { ok: boolean }> };
        return body.checks["grpc:tc"]?.ok === false ? { status: response.status, body } : undefined;
      },
      { what: "the gateway to see tc down", timeoutMs: 15_000, intervalMs: 200 },
    );
    // Still in its load balancer: Redis and the other backends answer.
    expect(readiness.status).toBe(200);
    expect(readiness.body.status).toBe("ready");
    // data-query does not depend on tc (intents-gateway does: its T&C gate), so it still answers.
    expect(readiness.body.checks["grpc:data-subnets"]?.ok).toBe(true);

    const headers = { authorization: `Bearer ${token}` };
    const tcRoute = await fetch(`${descriptor.gatewayUrl}/intents/v1/tc/status?walletAddress=0x52908400098527886e0f7030069857d2e4169ee7`, { headers });
    expect(tcRoute.status).toBe(503);
    expect(tcRoute.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await tcRoute.json()).toMatchObject({ status: 503 });
    const dataRoute = await fetch(`${descriptor.gatewayUrl}/data/v1/subnets/9999/validators/latest`, { headers });
    expect(dataRoute.status).toBe(404);
    expect(await dataRoute.json()).toMatchObject({ code: "NETUID_NOT_FOUND" });
    expect(cli("status").status).toBe(1);
  }, 60_000);

  it("stop ends every process it started", () => {
    const pids = descriptor.processes.map((entry) => entry.pid);
    const stop = cli("stop", 120_000);
    expect(stop.status).toBe(0);
    expect(pids.filter((pid) => isAlive(pid))).toEqual([]);
    expect(cli("status").status).not.toBe(0);
  }, 150_000);
});
