import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { defineRoute } from "@platform/http";
import { createLogger } from "@platform/log";
import { createMetricsRegistry, type Readiness, watchDependencies } from "@platform/runtime";
import { connectSignals, type Signals, subjects } from "@platform/signals";
import { type RunningNats, startNats, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGatewayApp } from "../../app.js";
import { readAboutAccount, readFrom } from "../../routes/data/shared/conditional.js";
import { conditionalRead } from "./conditionalRoute.js";
import { type ConnectedConditionalReads, connectConditionalReads } from "./connect.js";

// The gateway's conditional reads wired as main.ts wires them (connectConditionalReads, a `nats`
// readiness check), against a real nats-server: a projection's `readmodel.changed.<projection>`
// published by another connection makes the gateway ask its backend again, and NATS going away
// turns proofs from memory off (the gateway stays ready) until it is back.

const dir = tempDir("gateway-conditional");
const log = createLogger({ service: "gateway-conditional-test", level: "silent" });
const ALICE = `0x${"a1".repeat(32)}`;
const BOB = `0x${"b2".repeat(32)}`;
const calls = new Map<string, number>();
const asOf = { timestamp: new Date().toISOString() };

let nats: RunningNats;
let publisher: Signals;
let conditional: ConnectedConditionalReads;
let readiness: Readiness;
let server: Server;
let base: string;
let registry: ReturnType<typeof createMetricsRegistry>;

const route = (path: string, operationId: string) =>
  defineRoute({
    method: "get",
    path,
    operationId,
    scope: "data:read",
    params: z.object({ address: z.string() }).partial(),
    docs: {
      summary: operationId,
      tags: ["test"],
      success: { status: 200, description: "ok", contentType: "application/json" },
    },
    async handle({ params }) {
      calls.set(operationId, (calls.get(operationId) ?? 0) + 1);
      return { status: 200, body: { as_of: asOf, address: params.address ?? null } };
    },
  });
const docs = { cacheControl: "until the next block", notModified: "still current" };

beforeAll(async () => {
  nats = await startNats({ dir: join(dir.path, "js"), logFile: join(dir.path, "nats.log") });
  publisher = connectSignals({ servers: [nats.url], name: "projector-stand-in" });
  registry = createMetricsRegistry("gateway-conditional-test");
  conditional = connectConditionalReads({ natsUrl: nats.url, blockSeconds: 12, registry, log });
  readiness = watchDependencies([{ name: "redis", probe: async () => true }, ...conditional.checks], 100);
  readiness.onChange(conditional.onReadiness);
  const app = createGatewayApp({
    log,
    guard: async () => ({ keyId: "ak_test", headers: {} }),
    registry,
    readiness,
    routes: [
      conditionalRead(route("/data/v1/pools", "pools"), { dependsOn: readFrom("market", "subnets") }, docs),
      conditionalRead(route("/data/v1/accounts/:address/balance", "balance"), { dependsOn: readAboutAccount() }, docs),
    ],
    publicBaseUrl: "https://api.example",
    maxBodyBytes: 1024,
    conditional: conditional.reads,
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await waitFor(async () => conditional.reads.cacheOn() && (await publisher.ready()), { what: "signals flowing" });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  readiness?.stop();
  await conditional?.close();
  await publisher?.close();
  await nats?.stop();
  dir.remove();
});

/** The tag of a fresh read of `path`, and a conditional read of it that reports whether the backend was asked. */
async function follow(path: string, operationId: string) {
  const tag = (await fetch(`${base}${path}`)).headers.get("etag")!;
  return async (): Promise<"cached" | "called"> => {
    const before = calls.get(operationId) ?? 0;
    const response = await fetch(`${base}${path}`, { headers: { "if-none-match": tag } });
    expect(response.status).toBe(304);
    return (calls.get(operationId) ?? 0) > before ? "called" : "cached";
  };
}

/** Publishes a signal until the gateway has acted on it (a signal is a hint: the first may race the subscription). */
async function publishUntil(subject: string, payload: unknown, read: () => Promise<"cached" | "called">) {
  await waitFor(
    async () => {
      publisher.publish(subject, payload);
      await new Promise((resolve) => setTimeout(resolve, 50));
      return (await read()) === "called";
    },
    { what: `${subject} acted on`, timeoutMs: 5_000 },
  );
}

describe("conditional reads against a real nats-server", () => {
  it("answers 304 from memory until a projection it reads publishes readmodel.changed, then asks the backend again", async () => {
    const pools = await follow("/data/v1/pools", "pools");
    expect(await pools()).toBe("cached");
    await publishUntil(subjects.readModelChanged("subnets"), { projection: "subnets", version: "v2" }, pools);
    expect(await pools()).toBe("cached");
    await publishUntil(subjects.readModelChanged("market"), { projection: "market", version: "v3" }, pools);
    expect(await pools()).toBe("cached");
  });

  it("drops only the answers about the accounts an accounts signal names", async () => {
    const alice = await follow(`/data/v1/accounts/${ALICE}/balance`, "balance");
    const bob = await follow(`/data/v1/accounts/${BOB}/balance`, "balance");
    expect([await alice(), await bob()]).toEqual(["cached", "cached"]);
    await publishUntil(subjects.readModelChanged("accounts"), { accounts: [ALICE], truncated: false }, alice);
    expect(await bob()).toBe("cached");
    // A market signal means nothing to an answer read from the accounts projection alone.
    publisher.publish(subjects.readModelChanged("market"), { projection: "market", version: "v4" });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect([await alice(), await bob()]).toEqual(["cached", "cached"]);
  });

  it("counts signals by projection, every subject it does not know as `other`: no publisher can make up metric labels", async () => {
    const count = async (projection: string) => {
      const prefix = `gateway_conditional_change_signals_total{projection="${projection}",`;
      const found = (await registry.metrics()).split("\n").find((entry) => entry.startsWith(prefix));
      return found === undefined ? 0 : Number(found.slice(found.lastIndexOf(" ") + 1));
    };
    const before = { market: await count("market"), other: await count("other") };
    const madeUp = Array.from({ length: 20 }, (_, index) => `made-up-${index}-${"x".repeat(40)}`);
    for (const name of madeUp) publisher.publish(subjects.readModelChanged(name), {});
    publisher.publish(subjects.readModelChanged("market"), { projection: "market", version: "v-labels" });
    await waitFor(
      async () => (await count("other")) === before.other + 20 && (await count("market")) === before.market + 1,
      {
        what: "the signals counted",
        timeoutMs: 10_000,
      },
    );
    expect(await registry.metrics()).not.toContain("made-up-");
  });

  it("proves nothing from memory while NATS is down, stays ready, and proves again once it is back", async () => {
    const pools = await follow("/data/v1/pools", "pools");
    expect(await pools()).toBe("cached");
    await nats.stop();
    await waitFor(async () => !conditional.reads.cacheOn(), { what: "cache off", timeoutMs: 10_000 });
    expect(readiness.snapshot()).toMatchObject({ ready: true, checks: { nats: { ok: false, required: false } } });
    expect(await pools()).toBe("called");
    expect(await pools()).toBe("called");

    nats = await startNats({ port: nats.port, dir: join(dir.path, "js"), logFile: join(dir.path, "nats.log") });
    await waitFor(async () => conditional.reads.cacheOn(), { what: "cache on again", timeoutMs: 15_000 });
    const again = await follow("/data/v1/pools", "pools");
    expect(await again()).toBe("cached");
    await waitFor(() => publisher.ready(), { what: "publisher reconnected", timeoutMs: 10_000 });
    await publishUntil(subjects.readModelChanged("market"), { projection: "market", version: "v5" }, again);
  });
});
