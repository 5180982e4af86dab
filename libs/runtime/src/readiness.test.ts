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

  it("lists a dependency that is not required without letting it decide readiness", async () => {
    let backendUp = true;
    const readiness = watchDependencies(
      [
        { name: "redis", probe: async () => true },
        { name: "grpc:tc", probe: async () => backendUp, required: false },
      ],
      1_000,
    );
    expect((await readiness.refresh()).checks["grpc:tc"]).toMatchObject({ ok: true, required: false });
    backendUp = false;
    const down = await readiness.refresh();
    expect(down.ready).toBe(true);
    expect(down.checks["grpc:tc"]).toMatchObject({ ok: false, required: false });
    expect(down.checks.redis).toMatchObject({ ok: true, required: true });
    readiness.stop();
  });

  it("counts a probe that throws as down, without throwing itself", async () => {
    const readiness = watchDependencies([{ name: "nats", probe: () => Promise.reject(new Error("boom")) }], 1_000);
    expect((await readiness.refresh()).ready).toBe(false);
    readiness.stop();
  });
});
