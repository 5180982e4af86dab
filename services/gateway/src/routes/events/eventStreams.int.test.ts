import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { ServerWritableStream } from "@grpc/grpc-js";
import { createGrpcClient, startGrpcServer, type RunningGrpcServer } from "@platform/grpc";
import { createLogger } from "@platform/log";
import {
  DataEventsServiceClient,
  DataEventsServiceService,
  type WatchDataRequest,
  type WatchDataResponse,
} from "@platform/proto/data/v1/events";
import { createMetricsRegistry, watchDependencies } from "@platform/runtime";
import { createRedis, redisReadiness, type Redis } from "@platform/store";
import { startRedis, tempDir, waitFor, type RunningRedis } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRateLimiter } from "../../access/rateLimiter.js";
import { createGatewayApp } from "../../app.js";
import { createEventStreams, dataEventsRoute, type EventStreamsConfig } from "./index.js";

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

function watchData(call: ServerWritableStream<WatchDataRequest, WatchDataResponse>): void {
  const record: { after: string; cancelledAt?: number } = { after: call.request.after };
  calls.push(record);
  call.on("cancelled", () => (record.cancelledAt = Date.now()));
  setTimeout(() => {
    if (record.cancelledAt === undefined) call.write({ position: "1-0", change: { $case: "live", value: true } });
  }, firstMessageMs);
}

const BASE_CONFIG: EventStreamsConfig = {
  EVENT_STREAMS_PER_KEY: 1,
  EVENT_STREAM_HEARTBEAT_MS: 15_000,
  EVENT_STREAM_MAX_BUFFERED_BYTES: 256 * 1024,
  EVENT_STREAM_KEY_CHECK_MS: 2_000,
  EVENT_STREAM_LEASE_MS: 30_000,
};

/** A gateway serving the data event stream to one key (KEY, free tier) with the given stream settings. */
async function startGateway(config: Partial<EventStreamsConfig> = {}) {
  const registry = createMetricsRegistry("gateway-event-streams-test");
  const limiter = createRateLimiter(client, [{ name: "free", ratePerSecond: 5, burst: 10 }], "free");
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
    async stop() {
      streams.closeAll();
      streams.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const slotsHeld = () => client.zcard(`sse:{${KEY}}`);

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
