import { setTimeout as sleep } from "node:timers/promises";
import { type Context, ROOT_CONTEXT, TraceFlags, trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { holdContext, SampledContextManager, useSampledContextManager } from "./sampledContextManager.js";

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const sampled = trace.setSpanContext(ROOT_CONTEXT, {
  traceId: TRACE_ID,
  spanId: "b7ad6b7169203331",
  traceFlags: TraceFlags.SAMPLED,
});
// A recording span is what a sampler that kept the trace gives; wrapSpanContext never records.
const recording: Context = trace.setSpan(ROOT_CONTEXT, {
  ...trace.wrapSpanContext(trace.getSpanContext(sampled)!),
  isRecording: () => true,
});
const sampledOut = trace.setSpanContext(ROOT_CONTEXT, {
  traceId: TRACE_ID,
  spanId: "00f067aa0ba902b7",
  traceFlags: TraceFlags.NONE,
});

let manager: SampledContextManager;
afterEach(() => {
  manager?.disable();
  useSampledContextManager(undefined);
});

/** Whether an AsyncLocalStorage store rides on the current async resource (the hook is on). */
const storageOn = (m: SampledContextManager) => (m as unknown as { sampled: { enabled: boolean } }).sampled.enabled;

describe("SampledContextManager", () => {
  it("keeps a sampled context across awaits, and switches the storage off once its work settles", async () => {
    manager = new SampledContextManager();
    const seen = await manager.with(recording, async () => {
      await sleep(1);
      await Promise.resolve();
      return manager.active();
    });
    expect(seen).toBe(recording);
    expect(storageOn(manager)).toBe(false);
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it("gives a sampled-out context to the synchronous part of its body only", async () => {
    manager = new SampledContextManager();
    let synchronous: Context | undefined;
    const afterAwait = await manager.with(sampledOut, async () => {
      synchronous = manager.active();
      await sleep(1);
      return manager.active();
    });
    expect(synchronous).toBe(sampledOut);
    expect(afterAwait).toBe(ROOT_CONTEXT);
    expect(storageOn(manager)).toBe(false);
  });

  it("nests any context inside a sampled one, and restores the outer one after", async () => {
    manager = new SampledContextManager();
    await manager.with(recording, async () => {
      const inner = manager.with(sampledOut, () => manager.active());
      expect(inner).toBe(sampledOut);
      await sleep(1);
      expect(manager.active()).toBe(recording);
    });
  });

  it("keeps concurrent sampled work apart, and the storage on until the last one settles", async () => {
    manager = new SampledContextManager();
    const other = trace.setSpan(ROOT_CONTEXT, {
      ...trace.wrapSpanContext({ traceId: "1".repeat(32), spanId: "2".repeat(16), traceFlags: TraceFlags.SAMPLED }),
      isRecording: () => true,
    });
    const first = manager.with(recording, async () => {
      await sleep(5);
      return manager.active();
    });
    const second = manager.with(other, async () => {
      await sleep(20);
      return manager.active();
    });
    expect(await first).toBe(recording);
    expect(storageOn(manager)).toBe(true);
    expect(await second).toBe(other);
    expect(storageOn(manager)).toBe(false);
  });

  it("holds a sampled context for work a body starts but does not return (callbacks)", async () => {
    manager = new SampledContextManager();
    useSampledContextManager(manager);
    const done = new Promise<Context>((resolve) => {
      const release = holdContext(recording);
      manager.with(recording, () => {
        setTimeout(() => {
          resolve(manager.active());
          release();
        }, 5);
      });
    });
    expect(await done).toBe(recording);
    expect(storageOn(manager)).toBe(false);
    expect(holdContext(sampledOut)).toBeTypeOf("function");
  });

  it("releases its hold when the body throws", () => {
    manager = new SampledContextManager();
    expect(() =>
      manager.with(recording, () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(storageOn(manager)).toBe(false);
  });
});
