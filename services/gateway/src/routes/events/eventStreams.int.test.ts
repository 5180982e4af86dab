import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { ServerWritableStream } from "@grpc/grpc-js";
import { createGrpcClient, type RunningGrpcServer, startGrpcServer } from "@platform/grpc";
import { createLogger } from "@platform/log";
import {
  DataEventsServiceClient,
  DataEventsServiceService,
  type WatchDataRequest,
  type WatchDataResponse,
} from "@platform/proto/data/v1/events";
import { createMetricsRegistry, watchDependencies } from "@platform/runtime";
import { createRedis, type Redis, redisReadiness } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRateLimiter } from "../../access/rateLimiter.js";
import { createGatewayApp } from "../../app.js";
import { dataEventsRoute } from "./dataEvents.js";
import { createEventStreams, type EventStreamsConfig } from "./eventStreams.js";

/*
 * The data event stream through the real gateway app, its slots and key checks in a real Redis,
 * against a real gRPC server whose WatchData the test scripts: how long it takes to answer and
 * what it replays, and whether the gateway cancelled it.
 */

const log = createLogger({ service: "gateway-event-streams-test", level: "silent" });
const dir = tempDir("gateway-event-streams");
const KEY = "ak_streams";
let redis: RunningRedis;
let client: Redis;
let backend: RunningGrpcServer;
let dataEvents: DataEventsServiceClient;

/** Each WatchData call the backend got: when the gateway cancelled it (undefined while open). */
const calls: Array<{ after: string; cancelledAt?: number }> = [];
/** How long the backend waits before its first message. */
let firstMessageMs = 0;
/** How many events the backend replays to a call that resumes (Last-Event-ID), before `live`. */
let replayed = 0;

function watchData(call: ServerWritableStream<WatchDataRequest, WatchDataResponse>): void {
  const record: { after: string; cancelledAt?: number } = { after: call.request.after };
  calls.push(record);
  call.on("cancelled", () => (record.cancelledAt = Date.now()));
  setTimeout(() => {
    if (record.cancelledAt !== undefined) return;
    if (call.request.after !== "")
      for (let index = 0; index < replayed; index += 1)
        call.write({ position: `2-${index}`, change: { $case: "head", value: { readModel: "market" } } });
    call.write({ position: "3-0", change: { $case: "live", value: true } });
  }, firstMessageMs);
}

const BASE_CONFIG: EventStreamsConfig = {
  EVENT_STREAMS_PER_KEY: 1,
  EVENT_STREAM_HEARTBEAT_MS: 15_000,
  EVENT_STREAM_MAX_BUFFERED_BYTES: 256 * 1024,
  EVENT_STREAM_KEY_CHECK_MS: 2_000,
  EVENT_STREAM_LEASE_MS: 30_000,
  EVENT_REPLAY_EVENTS_PER_UNIT: 100,
  EVENT_STREAMS_PER_REPLICA: 1_000,
};

/** A gateway serving the data event stream to one key (KEY, free tier) with the given stream settings. */
async function startGateway(config: Partial<EventStreamsConfig> = {}) {
  const registry = createMetricsRegistry("gateway-event-streams-test");
  // A unit back every 100 s: what a stream spends stays spent while the test reads it.
  const limiter = createRateLimiter(client, [{ name: "free", ratePerSecond: 0.01, burst: 10 }], "free");
  const streams = createEventStreams({ redis: client, limiter, config: { ...BASE_CONFIG, ...config }, registry, log });
  const app = createGatewayApp({
    log,
    // Token checks have their own tests; this guard admits KEY with the credential a token would carry.
    guard: async () => ({
      keyId: KEY,
      credential: { secretVersion: 1, tier: "free", expiresAt: Date.now() / 1000 + 900 },
      headers: {},
    }),
    registry,
    readiness: watchDependencies([], 60_000),
    routes: [dataEventsRoute(dataEvents, streams)],
    publicBaseUrl: "https://api.example",
    maxBodyBytes: 1024,
  });
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    streams,
    /** Units left in KEY's budget (a cost-0 admission spends nothing). */
    async remaining() {
      const verdict = await limiter.admit(KEY, 1, "free", 0);
      return verdict.kind === "allowed" ? verdict.remaining : Number.NaN;
    },
    async stop() {
      streams.closeAll();
      streams.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const slotsHeld = () => client.zcard(`sse:{${KEY}}`);

/** The events of an SSE answer, read until `enough` says so or the stream ends. */
async function readEvents(
  response: Response,
  enough: (events: Array<{ event: string; data: unknown }>) => boolean = () => false,
): Promise<Array<{ event: string; data: unknown }>> {
  const events: Array<{ event: string; data: unknown }> = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
    let end = text.indexOf("\n\n");
    while (end >= 0) {
      const frame = text.slice(0, end);
      text = text.slice(end + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (event !== undefined) events.push({ event, data: data === undefined ? undefined : JSON.parse(data) });
      end = text.indexOf("\n\n");
    }
    if (enough(events)) {
      await reader.cancel();
      break;
    }
  }
  return events;
}

beforeAll(async () => {
  redis = await startRedis({ dir: join(dir.path, "data"), logFile: join(dir.path, "redis.log") });
  client = createRedis({ url: redis.url, connectionName: "gateway-event-streams-test" });
  await waitFor(() => redisReadiness(client), { what: "redis ready" });
  // The key as auth's registry holds it: the stream's key checks read it.
  await client.hset(`auth:key:{${KEY}}`, "status", "active", "secretVersion", "1");
  backend = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services: [
      {
        name: "platform.data.v1.DataEventsService",
        definition: DataEventsServiceService,
        implementation: { watchData },
      },
    ],
  });
  backend.setServing(true);
  dataEvents = createGrpcClient(DataEventsServiceClient, {
    target: `127.0.0.1:${backend.port}`,
    deadlineMs: 5_000,
    batchCalls: false,
    unavailableRetries: 0,
  });
});

afterAll(async () => {
  dataEvents.close();
  await backend.shutdown(0);
  client.disconnect();
  await redis.stop();
  dir.remove();
});

describe("a client that leaves an event stream", () => {
  it("before the backend's first message: its slot is released, the backend's watch cancelled, and the key's next stream admitted", async () => {
    const gateway = await startGateway();
    try {
      firstMessageMs = 1_500;
      calls.length = 0;
      const leaving = new AbortController();
      const request = fetch(`${gateway.base}/data/v1/events`, { signal: leaving.signal }).catch(() => undefined);
      // Leaves once the backend has the call, long before its first message.
      await waitFor(async () => calls.length === 1, { what: "the backend's watch", timeoutMs: 10_000 });
      expect(await slotsHeld()).toBe(1);
      leaving.abort();
      await request;
      const leftAt = Date.now();
      await waitFor(async () => calls[0]!.cancelledAt !== undefined, {
        what: "the watch cancelled",
        timeoutMs: 10_000,
      });
      await waitFor(async () => (await slotsHeld()) === 0, { what: "the slot released", timeoutMs: 10_000 });
      // Well before the first message would have come, let alone a renewal.
      expect(calls[0]!.cancelledAt! - leftAt).toBeLessThan(1_400);
      // After the first message's time has passed too, nothing took the slot back.
      await new Promise((resolve) => setTimeout(resolve, 1_800));
      expect(await slotsHeld()).toBe(0);
      // The cap is one stream: the next one is admitted.
      firstMessageMs = 0;
      const next = await fetch(`${gateway.base}/data/v1/events`);
      expect(next.status).toBe(200);
      await next.body!.cancel();
      await waitFor(async () => (await slotsHeld()) === 0, { what: "the second slot released", timeoutMs: 10_000 });
    } finally {
      await gateway.stop();
    }
  });
});

describe("a resumed stream's replay", () => {
  it("is charged to the key's rate budget: a unit for every 100 events replayed before live", async () => {
    const gateway = await startGateway({ EVENT_REPLAY_EVENTS_PER_UNIT: 100 });
    try {
      await client.del(`rl:{${KEY}}:default`);
      firstMessageMs = 0;
      replayed = 250;
      expect(await gateway.remaining()).toBe(10);
      const response = await fetch(`${gateway.base}/data/v1/events`, { headers: { "last-event-id": "1-0" } });
      expect(response.status).toBe(200);
      const events = await readEvents(response, (seen) => seen.some((event) => event.event === "live"));
      expect(events.filter((event) => event.event === "head")).toHaveLength(250);
      await waitFor(async () => (await gateway.remaining()) === 8, { what: "two units spent", timeoutMs: 10_000 });
      // A stream that does not resume replays nothing and is charged nothing more.
      const fresh = await fetch(`${gateway.base}/data/v1/events`);
      await readEvents(fresh, (seen) => seen.some((event) => event.event === "live"));
      await waitFor(async () => (await slotsHeld()) === 0, { what: "the slots released", timeoutMs: 10_000 });
      expect(await gateway.remaining()).toBe(8);
    } finally {
      await gateway.stop();
    }
  });

  it("that spends the budget ends the stream with `closed` RATE_LIMITED, to be resumed from its last id later", async () => {
    const gateway = await startGateway({ EVENT_REPLAY_EVENTS_PER_UNIT: 100 });
    try {
      await client.del(`rl:{${KEY}}:default`);
      firstMessageMs = 0;
      replayed = 5_000;
      const response = await fetch(`${gateway.base}/data/v1/events`, { headers: { "last-event-id": "1-0" } });
      expect(response.status).toBe(200);
      const events = await readEvents(response);
      const last = events.at(-1)!;
      expect(last.event).toBe("closed");
      expect(last.data).toMatchObject({ code: "RATE_LIMITED" });
      expect((last.data as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0);
      // Ten units were there; the eleventh hundred was refused. What arrived before the refusal
      // came back may pass it, never the whole replay.
      const heads = events.filter((event) => event.event === "head").length;
      expect(heads).toBeGreaterThanOrEqual(1_000);
      expect(heads).toBeLessThan(5_000);
      expect(events.some((event) => event.event === "live")).toBe(false);
    } finally {
      await gateway.stop();
    }
  });
});

describe("a gateway replica's stream cap", () => {
  it("answers 503 UNAVAILABLE with Retry-After past it, whatever the key holds, and admits again once a stream ends", async () => {
    const gateway = await startGateway({ EVENT_STREAMS_PER_KEY: 5, EVENT_STREAMS_PER_REPLICA: 1 });
    try {
      firstMessageMs = 0;
      replayed = 0;
      const first = await fetch(`${gateway.base}/data/v1/events`);
      expect(first.status).toBe(200);
      const refused = await fetch(`${gateway.base}/data/v1/events`);
      expect(refused.status).toBe(503);
      expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(await refused.json()).toMatchObject({ status: 503, code: "UNAVAILABLE" });
      // The refused request took no slot of the key's.
      expect(await slotsHeld()).toBe(1);
      await first.body!.cancel();
      await waitFor(async () => (await slotsHeld()) === 0, { what: "the first stream ended", timeoutMs: 10_000 });
      const again = await fetch(`${gateway.base}/data/v1/events`);
      expect(again.status).toBe(200);
      await again.body!.cancel();
    } finally {
      await gateway.stop();
    }
  });
});
