import { describe, expect, it } from "vitest";
import { parseTracingConfig } from "./tracingConfig.js";

describe("parseTracingConfig", () => {
  it("is off by default, parent-based always-on, OTLP/HTTP protobuf to the local collector", () => {
    expect(parseTracingConfig("gateway", {})).toEqual({
      exporter: "none",
      serviceName: "gateway",
      otlpUrl: "http://localhost:4318/v1/traces",
      protocol: "http/protobuf",
      sampler: "parentbased_always_on",
      samplerRatio: 1,
      scheduleDelayMs: 5_000,
    });
  });

  it("reads the standard variables; the traces endpoint wins over the base one", () => {
    const config = parseTracingConfig("gateway", {
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_SERVICE_NAME: "gateway-eu",
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.01",
    });
    expect(config).toMatchObject({
      exporter: "otlp",
      serviceName: "gateway-eu",
      otlpUrl: "http://collector:4318/v1/traces",
      protocol: "http/json",
      samplerRatio: 0.01,
    });
    expect(
      parseTracingConfig("x", {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://b:4318/custom",
      }).otlpUrl,
    ).toBe("http://b:4318/custom");
  });

  it.each([
    [{ OTEL_TRACES_EXPORTER: "jaeger" }, "OTEL_TRACES_EXPORTER"],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, "OTEL_EXPORTER_OTLP_PROTOCOL"],
    [{ OTEL_TRACES_SAMPLER: "sometimes" }, "OTEL_TRACES_SAMPLER"],
    [{ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1.5" }, "OTEL_TRACES_SAMPLER_ARG"],
    [{ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "half" }, "OTEL_TRACES_SAMPLER_ARG"],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, "OTEL_EXPORTER_OTLP_ENDPOINT"],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "not a url" }, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"],
    [{ OTEL_BSP_SCHEDULE_DELAY: "soon" }, "OTEL_BSP_SCHEDULE_DELAY"],
  ])("fails fast on %j naming %s", (env, variable) => {
    expect(() => parseTracingConfig("x", env)).toThrow(new RegExp(`^${variable}: `));
  });
});
