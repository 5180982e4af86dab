import type { Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { createLogger } from "@platform/log";
import { createMetricsRegistry, watchDependencies } from "@platform/runtime";
import { afterEach, describe, expect, it } from "vitest";
import { createGatewayApp } from "../app.js";
import { gatewayConfigSchema } from "../config.js";
import { peerBucket } from "./connectionsPerAddress.js";
import { DEFAULT_SERVER_LIMITS, serverLimitsOf } from "./serverLimits.js";
import { parseTrustedProxies, type TrustedProxies } from "./trustedProxies.js";

// The public HTTP server's limits are set from configuration, never left to node's defaults: how
// many connections it holds, how long a client may take to send its headers and its whole request,
// and how long an idle keep-alive connection stays open.

let server: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
  server = undefined;
});

async function listen(limits: ReturnType<typeof serverLimitsOf>, trustedProxies?: TrustedProxies) {
  const app = createGatewayApp({
    log: createLogger({ service: "server-limits-test", level: "silent" }),
    guard: async () => ({ keyId: "ak", headers: {} }),
    registry: createMetricsRegistry("server-limits-test"),
    readiness: watchDependencies([], 60_000),
    routes: [],
    publicBaseUrl: "https://api.example",
    maxBodyBytes: 1024,
    serverLimits: limits,
    ...(trustedProxies ? { trustedProxies } : {}),
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server!.once("listening", resolve));
  return (server.address() as AddressInfo).port;
}

/** A raw connection: what it was sent back, and when it closed. */
async function open(port: number, localAddress = "127.0.0.1") {
  const socket = connect({ port, host: "127.0.0.1", localAddress });
  sockets.push(socket);
  const state = { received: "", closedAt: undefined as number | undefined };
  socket.on("data", (chunk) => (state.received += chunk.toString()));
  socket.on("close", () => (state.closedAt = Date.now()));
  socket.on("error", () => undefined);
  await new Promise((resolve) => socket.once("connect", resolve));
  return { socket, state };
}

const until = async (condition: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return condition();
};

describe("the gateway's server limits", () => {
  it("have documented defaults, set from configuration", () => {
    const config = gatewayConfigSchema.parse({
      REDIS_URL: "redis://127.0.0.1:6379",
      AUTH_GRPC_TARGET: "a:1",
      TC_GRPC_TARGET: "a:1",
      INTENTS_GRPC_TARGET: "a:1",
      DATA_ACCOUNTS_GRPC_TARGET: "a:1",
      DATA_MARKET_GRPC_TARGET: "a:1",
      DATA_SUBNETS_GRPC_TARGET: "a:1",
    });
    expect(serverLimitsOf(config)).toEqual({
      maxConnections: 10_000,
      maxConnectionsPerAddress: 256,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 65_000,
    });
  });

  it("hold the connections to the cap, close a client slow with its headers, and idle keep-alive connections", async () => {
    const port = await listen({
      maxConnections: 2,
      maxConnectionsPerAddress: 2,
      headersTimeoutMs: 600,
      requestTimeoutMs: 1_200,
      keepAliveTimeoutMs: 400,
    });
    expect([server!.maxConnections, server!.headersTimeout, server!.requestTimeout, server!.keepAliveTimeout]).toEqual([
      2, 600, 1_200, 400,
    ]);
    // A client that never finishes its headers is answered 408 and closed once the timeout passes.
    const slow = await open(port);
    slow.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
    // Idle after one answer: closed once keep-alive runs out.
    const idle = await open(port);
    idle.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    // Over the cap: closed at once, no answer.
    const third = await open(port);
    expect(await until(() => third.state.closedAt !== undefined, 5_000)).toBe(true);
    expect(third.state.received).toBe("");
    expect(await until(() => idle.state.received.includes("200 OK") && idle.state.closedAt !== undefined, 10_000)).toBe(
      true,
    );
    expect(await until(() => slow.state.closedAt !== undefined, 10_000)).toBe(true);
    expect(slow.state.received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(slow.state.received).toContain('"code":"REQUEST_TIMEOUT"');
  });

  it("cap the connections of one client address, and count neither another address nor a trusted proxy", async () => {
    const port = await listen(
      { ...DEFAULT_SERVER_LIMITS, maxConnectionsPerAddress: 2 },
      parseTrustedProxies("127.0.0.3"),
    );
    const held = [await open(port), await open(port)];
    const third = await open(port);
    expect(await until(() => third.state.closedAt !== undefined, 5_000)).toBe(true);
    expect(third.state.received).toBe("");
    // Another address (Linux answers the whole of 127/8) is not concerned.
    const elsewhere = await open(port, "127.0.0.2");
    elsewhere.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await until(() => elsewhere.state.received.includes("200 OK"), 5_000)).toBe(true);
    // A trusted proxy carries many clients: its connections are not capped per address.
    const proxied = [await open(port, "127.0.0.3"), await open(port, "127.0.0.3"), await open(port, "127.0.0.3")];
    proxied[2]!.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await until(() => proxied[2]!.state.received.includes("200 OK"), 5_000)).toBe(true);
    // Closing one frees its slot.
    held[0]!.socket.destroy();
    await until(() => held[0]!.state.closedAt !== undefined, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = await open(port);
    again.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await until(() => again.state.received.includes("200 OK"), 5_000)).toBe(true);
  });

  it("count an IPv6 client per /64", () => {
    expect(peerBucket("2001:db8:1:2::1")).toBe(peerBucket("2001:db8:1:2:ffff::9"));
    expect(peerBucket("2001:db8:1:2::1")).not.toBe(peerBucket("2001:db8:1:3::1"));
    expect(peerBucket("::ffff:192.0.2.1")).toBe("192.0.2.1");
  });
});
