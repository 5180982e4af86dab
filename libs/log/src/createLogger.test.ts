import { Writable } from "node:stream";
import { inSpan, startTestTracing } from "@platform/telemetry";
import { describe, expect, it } from "vitest";
import { createLogger } from "./createLogger.js";

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  return { lines, destination };
}

describe("createLogger", () => {
  it("writes JSON lines carrying the service name", () => {
    const { lines, destination } = capture();
    createLogger({ service: "unit", destination }).info({ route: "/x" }, "hello");
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ service: "unit", level: "info", msg: "hello", route: "/x" });
  });

  it("never prints secrets, tokens or signatures, even nested", () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: "unit", destination });
    log.info({ body: { password: "s3cret-pw", refresh_token: "rt-123" }, signature: "0xdeadbeef" }, "login");
    log.info({ req: { headers: { authorization: "Bearer abc.def.ghi" } } }, "request");
    log.error({ err: new Error("bad token eyJhbGciOi.eyJzdWIiOiJ4In0.c2lnbmF0dXJl") }, "failed");
    const all = lines.join("\n");
    for (const secret of ["s3cret-pw", "rt-123", "0xdeadbeef", "abc.def.ghi", "eyJhbGciOi.eyJzdWIiOiJ4In0"]) {
      expect(all).not.toContain(secret);
    }
  });

  it("never prints secrets in a child logger's bindings either", () => {
    const { lines, destination } = capture();
    createLogger({ service: "unit", destination }).child({ apiKeySecret: "sk-1", keyId: "ak_1" }).info("bound");
    expect(lines[0]).not.toContain("sk-1");
    expect(JSON.parse(lines[0]!)).toMatchObject({ apiKeySecret: "[redacted]", keyId: "ak_1" });
  });

  it("carries the active span's trace_id and span_id, and nothing outside a span", async () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: "unit", destination });
    const tracing = startTestTracing();
    try {
      await inSpan("work", {}, async (span) => {
        await Promise.resolve();
        log.info("inside");
        expect(JSON.parse(lines[0]!)).toMatchObject({
          trace_id: span.spanContext().traceId,
          span_id: span.spanContext().spanId,
        });
      });
      log.info("outside");
      expect(JSON.parse(lines[1]!)).not.toHaveProperty("trace_id");
      expect(JSON.parse(lines[1]!)).not.toHaveProperty("span_id");
    } finally {
      await tracing.shutdown();
    }
    log.info("tracing off");
    expect(JSON.parse(lines[2]!)).not.toHaveProperty("trace_id");
  });
});
