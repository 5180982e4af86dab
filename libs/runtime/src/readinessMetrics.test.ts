import { describe, expect, it } from "vitest";
import { createMetricsRegistry } from "./metrics.js";
import { watchDependencies } from "./readiness.js";
import { exportReadinessMetrics, readReadiness } from "./readinessMetrics.js";

/** The value of a sample line of the text exposition, as a scraper reads it. */
function sample(text: string, line: string): number | undefined {
  const found = text.split("\n").find((entry) => entry.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe("readReadiness", () => {
  it("counts a flip between ready and not ready, never the first reading", () => {
    const up = { ready: true, checks: { redis: { ok: true, required: true, since: "" } } };
    const down = { ready: false, checks: { redis: { ok: false, required: true, since: "" } } };
    expect(readReadiness(undefined, up)).toEqual({ ready: 1, dependencies: { redis: 1 }, transition: false });
    expect(readReadiness(true, down)).toEqual({ ready: 0, dependencies: { redis: 0 }, transition: true });
    expect(readReadiness(false, down).transition).toBe(false);
    expect(readReadiness(false, up).transition).toBe(true);
  });
});

describe("exportReadinessMetrics", () => {
  it("shows readiness, each dependency and the transitions in the registry's text output", async () => {
    let redisUp = true;
    const readiness = watchDependencies(
      [
        { name: "redis", probe: async () => redisUp },
        { name: "grpc:auth", probe: async () => false, required: false },
      ],
      60_000,
    );
    const registry = createMetricsRegistry("readiness-test");
    exportReadinessMetrics(readiness, registry);
    const labels = 'service="readiness-test"';
    try {
      await readiness.refresh();
      let text = await registry.metrics();
      expect(sample(text, `service_ready{${labels}}`)).toBe(1);
      expect(sample(text, `service_readiness_changes_total{${labels}}`)).toBe(0);
      expect(sample(text, `service_dependency_up{dependency="redis",${labels}}`)).toBe(1);
      expect(sample(text, `service_dependency_up{dependency="grpc:auth",${labels}}`)).toBe(0);

      redisUp = false;
      await readiness.refresh();
      text = await registry.metrics();
      expect(sample(text, `service_ready{${labels}}`)).toBe(0);
      expect(sample(text, `service_dependency_up{dependency="redis",${labels}}`)).toBe(0);
      expect(sample(text, `service_readiness_changes_total{${labels}}`)).toBe(1);

      redisUp = true;
      await readiness.refresh();
      await readiness.refresh();
      text = await registry.metrics();
      expect(sample(text, `service_ready{${labels}}`)).toBe(1);
      expect(sample(text, `service_readiness_changes_total{${labels}}`)).toBe(2);
    } finally {
      readiness.stop();
    }
  });
});
