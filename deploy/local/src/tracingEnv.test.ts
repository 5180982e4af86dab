import { describe, expect, it } from "vitest";
import { otelServiceEnv } from "./tracingEnv.js";

describe("otelServiceEnv", () => {
  it("hands the shell's OTEL_* variables, and only those, to every service", () => {
    const env = otelServiceEnv({ OTEL_TRACES_EXPORTER: "console", PATH: "/bin", LOG_LEVEL: "debug" });
    expect(Object.keys(env!).sort()).toEqual(
      ["auth", "chain-ingestor", "data-query", "gateway", "intents-gateway", "projector", "tc"].sort(),
    );
    expect(env!.gateway).toEqual({ OTEL_TRACES_EXPORTER: "console" });
  });

  it("is undefined without any, so tracing stays off", () => {
    expect(otelServiceEnv({ PATH: "/bin" })).toBeUndefined();
  });
});
