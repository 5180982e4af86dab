import { describe, expect, it } from "vitest";
import { watchDependencies } from "./readiness.js";

describe("watchDependencies", () => {
  it("is ready only while every dependency answers, and recovers by itself", async () => {
    let redisUp = true;
    const readiness = watchDependencies(
      [
        { name: "redis", probe: async () => redisUp },
        { name: "kafka", probe: async () => true },
      ],
      20,
    );
    const changes: boolean[] = [];
    readiness.onChange((snapshot) => changes.push(snapshot.ready));
    expect((await readiness.refresh()).ready).toBe(true);
    redisUp = false;
    const down = await readiness.refresh();
    expect(down.ready).toBe(false);
    expect(down.checks.redis?.ok).toBe(false);
    expect(down.checks.kafka?.ok).toBe(true);
    redisUp = true;
    expect((await readiness.refresh()).ready).toBe(true);
    readiness.stop();
    expect(changes).toContain(false);
    expect(changes.at(-1)).toBe(true);
  });

  it("counts a probe that throws as down, without throwing itself", async () => {
    const readiness = watchDependencies([{ name: "nats", probe: () => Promise.reject(new Error("boom")) }], 1_000);
    expect((await readiness.refresh()).ready).toBe(false);
    readiness.stop();
  });
});
