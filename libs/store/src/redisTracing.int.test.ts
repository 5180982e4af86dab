import { join } from "node:path";
import { inSpan, SpanKind, startTestTracing } from "@platform/telemetry";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedis, type Redis, redisReadiness } from "./createRedis.js";

// ioredis's own tracing channels, subscribed by createRedis while tracing is on (no patching: ESM).
const dir = tempDir("store-tracing");
let server: RunningRedis;
let redis: Redis;
let tracing: ReturnType<typeof startTestTracing>;

beforeAll(async () => {
  tracing = startTestTracing("store");
  server = await startRedis({ dir: join(dir.path, "data"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: server.url, connectionName: "store-tracing-test" });
  await waitFor(() => redisReadiness(redis), { what: "redis ready" });
});

afterAll(async () => {
  redis.disconnect();
  await tracing.shutdown();
  await server.stop();
  dir.remove();
});

describe("Redis spans", () => {
  it("one client span per command and one per MULTI/EXEC inside a trace, without keys or values", async () => {
    await redis.set("rm:trace:outside", "no span");
    tracing.exporter.reset();
    await inSpan("read", { kind: SpanKind.SERVER }, async () => {
      await redis.get("rm:secret:sk_key_material");
      await redis.multi().set("rm:trace:a", "value-secret").incr("rm:trace:n").exec();
    });
    const spans = tracing.exporter.getFinishedSpans();
    const parent = spans.find((span) => span.name === "read")!;
    const redisSpans = spans.filter((span) => span.attributes["db.system.name"] === "redis");
    expect(redisSpans.map((span) => span.name)).toEqual(["GET", "MULTI"]);
    for (const span of redisSpans) {
      expect(span.kind).toBe(SpanKind.CLIENT);
      expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
      expect(span.endTime[0] * 1e9 + span.endTime[1]).toBeGreaterThanOrEqual(
        span.startTime[0] * 1e9 + span.startTime[1],
      );
    }
    expect(redisSpans[1]!.attributes["db.operation.batch.size"]).toBe(2);
    const text = JSON.stringify(redisSpans.map((span) => span.attributes));
    for (const secret of ["sk_key_material", "value-secret", "rm:trace:a"]) expect(text).not.toContain(secret);
  });
});
