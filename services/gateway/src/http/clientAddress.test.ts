import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigError, loadConfig } from "@platform/config";
import { defineRoute } from "@platform/http";
import { createLogger } from "@platform/log";
import { createMetricsRegistry, watchDependencies } from "@platform/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGatewayApp } from "../app.js";
import { gatewayConfigSchema } from "../config.js";
import { clientAddressOf, plainAddress } from "./requestContext.js";
import { NO_TRUSTED_PROXIES, parseTrustedProxies, type TrustedProxies } from "./trustedProxies.js";

// The client address feeds /auth's per-address slow-down and lockout: whoever can choose it can
// spread guesses over made-up addresses, or lock a key's owner out from theirs.

const request = (peer: string, forwarded?: string) =>
  ({
    socket: { remoteAddress: peer },
    headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded },
  }) as unknown as IncomingMessage;

// The overlays' shape: the Ingress controller's pods in the cluster's pod range.
const PODS = parseTrustedProxies("10.244.0.0/16, fd00:10:244::/56");

describe("client address", () => {
  it("is the peer when the peer is not a trusted proxy, whatever X-Forwarded-For says", () => {
    expect(clientAddressOf(request("198.51.100.9", "203.0.113.77"), PODS)).toBe("198.51.100.9");
    expect(clientAddressOf(request("198.51.100.9", "203.0.113.77"), NO_TRUSTED_PROXIES)).toBe("198.51.100.9");
    expect(clientAddressOf(request("10.244.3.7", "203.0.113.77"), NO_TRUSTED_PROXIES)).toBe("10.244.3.7");
    expect(clientAddressOf(request("2001:db8::9", "203.0.113.77"), PODS)).toBe("2001:db8::9");
  });

  it("from a trusted proxy, is the rightmost entry outside the trusted ranges", () => {
    expect(clientAddressOf(request("10.244.3.7", "203.0.113.77"), PODS)).toBe("203.0.113.77");
    // What the client wrote itself sits left of what the proxy appended, and is never read.
    expect(clientAddressOf(request("10.244.3.7", "192.0.2.1, 203.0.113.77"), PODS)).toBe("203.0.113.77");
    // Trusted hops are skipped, however many: a proxy in front of the Ingress controller.
    expect(clientAddressOf(request("10.244.3.7", "192.0.2.1, 203.0.113.77, 10.244.9.9"), PODS)).toBe("203.0.113.77");
    expect(clientAddressOf(request("fd00:10:244::5", "2001:db8::7, fd00:10:244::6"), PODS)).toBe("2001:db8::7");
    expect(clientAddressOf(request("::ffff:10.244.3.7", "[2001:db8::7]:443"), PODS)).toBe("2001:db8::7");
    expect(clientAddressOf(request("10.244.3.7", "203.0.113.7:51234"), PODS)).toBe("203.0.113.7");
    // Several headers count as one list, in order.
    expect(
      clientAddressOf(
        {
          socket: { remoteAddress: "10.244.3.7" },
          headers: { "x-forwarded-for": ["192.0.2.1", "203.0.113.77"] },
        } as unknown as IncomingMessage,
        PODS,
      ),
    ).toBe("203.0.113.77");
  });

  it("stops at the last trusted address on an entry that is not an IP, and when every entry is trusted takes the leftmost", () => {
    expect(clientAddressOf(request("10.244.3.7"), PODS)).toBe("10.244.3.7");
    expect(clientAddressOf(request("10.244.3.7", ""), PODS)).toBe("10.244.3.7");
    expect(clientAddressOf(request("10.244.3.7", "203.0.113.77, unknown"), PODS)).toBe("10.244.3.7");
    expect(clientAddressOf(request("10.244.3.7", "evil, 10.244.1.1"), PODS)).toBe("10.244.1.1");
    expect(clientAddressOf(request("10.244.3.7", "10.244.1.2, 10.244.1.1"), PODS)).toBe("10.244.1.2");
  });

  it("gives addresses plain: no brackets, port or IPv4 mapping", () => {
    expect(clientAddressOf(request("::ffff:198.51.100.9"), NO_TRUSTED_PROXIES)).toBe("198.51.100.9");
    expect(plainAddress("::FFFF:198.51.100.1")).toBe("198.51.100.1");
    expect(plainAddress("fe80::1%eth0")).toBe("fe80::1%eth0");
    expect(plainAddress("not-an-ip")).toBeUndefined();
  });
});

describe("TRUST_PROXY_CIDRS", () => {
  const required = {
    REDIS_URL: "redis://127.0.0.1:6379",
    AUTH_GRPC_TARGET: "dns:///auth:50051",
    TC_GRPC_TARGET: "dns:///tc:50051",
    INTENTS_GRPC_TARGET: "dns:///intents:50051",
    DATA_ACCOUNTS_GRPC_TARGET: "dns:///accounts:50051",
    DATA_MARKET_GRPC_TARGET: "dns:///market:50051",
    DATA_SUBNETS_GRPC_TARGET: "dns:///subnets:50051",
  };
  const proxiesOf = (value?: string): TrustedProxies =>
    loadConfig(gatewayConfigSchema, { ...required, ...(value === undefined ? {} : { TRUST_PROXY_CIDRS: value }) })
      .TRUST_PROXY_CIDRS;
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(gatewayConfigSchema, { ...required, ...env });
    } catch (error) {
      return error instanceof ConfigError ? error.message : `not a ConfigError: ${String(error)}`;
    }
    return "accepted";
  };

  it("trusts no proxy by default, and IPv4 and IPv6 ranges and single addresses when set", () => {
    expect(proxiesOf().has("127.0.0.1")).toBe(false);
    const proxies = proxiesOf("10.244.0.0/16,fd00:10:244::/56, 192.0.2.10");
    for (const inside of ["10.244.0.1", "10.244.255.254", "fd00:10:244::1", "fd00:10:244:ff::1", "192.0.2.10"])
      expect(proxies.has(inside), inside).toBe(true);
    for (const outside of ["10.245.0.1", "192.0.2.11", "fd00:10:245::1", "2001:db8::1", "", "junk"])
      expect(proxies.has(outside), outside).toBe(false);
  });

  it("refuses a malformed range, naming the variable and the entry", () => {
    for (const bad of [
      "10.0.0.0/33",
      "10.0.0/8",
      "fd00::/129",
      "10.0.0.0/8/1",
      "10.0.0.0/-1",
      "example.com/24",
      "10.0.0.0/x",
    ]) {
      const message = refusal({ TRUST_PROXY_CIDRS: `192.0.2.0/24,${bad}` });
      expect(message, bad).toMatch(/^TRUST_PROXY_CIDRS: must be IPv4\/IPv6 CIDRs/);
      expect(message, bad).toContain(`"${bad}"`);
    }
  });

  it("refuses the replaced TRUST_PROXY_HOPS, so a deployment still setting it fails at start", () => {
    expect(refusal({ TRUST_PROXY_HOPS: "1" })).toMatch(/^TRUST_PROXY_HOPS: is no longer read: set TRUST_PROXY_CIDRS/);
  });
});

describe("the gateway over real connections", () => {
  let server: Server;
  let base: string;
  const whoRoute = (method: "get" | "post") =>
    defineRoute({
      method,
      path: method === "get" ? "/data/v1/who/latest" : "/intents/v1/who",
      operationId: `who_${method}`,
      ...(method === "post" ? { body: z.object({}) } : {}),
      docs: {
        summary: "who",
        tags: ["test"],
        success: { status: 200, description: "the client address", contentType: "application/json" },
      },
      async handle({ context }) {
        return { status: 200, body: { client: context.clientAddress() } };
      },
    });

  beforeAll(async () => {
    const registry = createMetricsRegistry("client-address-test");
    const readiness = watchDependencies([{ name: "redis", probe: async () => true }], 60_000);
    await readiness.refresh();
    const app = createGatewayApp({
      log: createLogger({ service: "client-address-test", level: "silent" }),
      guard: async () => ({ keyId: "ak_test", headers: {} }),
      registry,
      readiness,
      // As the overlays configure it: the test connects from loopback, outside these ranges.
      trustedProxies: PODS,
      routes: [whoRoute("get"), whoRoute("post")],
      publicBaseUrl: "https://api.example",
      maxBodyBytes: 1024,
    });
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("takes a direct request with a spoofed X-Forwarded-For as its peer's address, on both paths", async () => {
    const headers = { "x-forwarded-for": "203.0.113.77", "content-type": "application/json" };
    const get = await fetch(`${base}/data/v1/who/latest`, { headers });
    expect(await get.json()).toEqual({ client: "127.0.0.1" });
    const post = await fetch(`${base}/intents/v1/who`, { method: "POST", headers, body: "{}" });
    expect(await post.json()).toEqual({ client: "127.0.0.1" });
  });
});
