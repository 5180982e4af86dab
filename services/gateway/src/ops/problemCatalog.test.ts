import { loadConfig } from "@platform/config";
import { buildOpenApiDocument } from "@platform/http";
import { createLogger } from "@platform/log";
import { describe, expect, it } from "vitest";
import { connectBackends } from "../backends.js";
import { gatewayConfigSchema } from "../config.js";
import { PROBLEM_TITLES } from "../http/problemTitles.js";
import { unservedEventStreams } from "../routes/events/eventStreams.js";
import { apiRoutes } from "../routes/index.js";
import { PROBLEM_CATALOG } from "./problemCatalog.js";

// The gateway's real routes, for what they declare; nothing here calls a backend.
function gatewayRoutes() {
  const config = loadConfig(gatewayConfigSchema, {
    REDIS_URL: "redis://127.0.0.1:1",
    AUTH_GRPC_TARGET: "127.0.0.1:1",
    TC_GRPC_TARGET: "127.0.0.1:1",
    INTENTS_GRPC_TARGET: "127.0.0.1:1",
    DATA_ACCOUNTS_GRPC_TARGET: "127.0.0.1:1",
    DATA_MARKET_GRPC_TARGET: "127.0.0.1:1",
    DATA_SUBNETS_GRPC_TARGET: "127.0.0.1:1",
  });
  const backends = connectBackends(config);
  return apiRoutes(backends, unservedEventStreams(createLogger({ service: "problem-catalog-test", level: "silent" })));
}

describe("the problem catalog", () => {
  it("describes exactly the codes the gateway has titles for", () => {
    expect(Object.keys(PROBLEM_CATALOG).sort()).toEqual(Object.keys(PROBLEM_TITLES).sort());
  });

  it("describes every code of the OpenAPI document, with each status a route declares for it", () => {
    const routes = gatewayRoutes();
    const document = buildOpenApiDocument(
      { title: "t", version: "1", description: "d", serverUrl: "https://api.example" },
      routes,
    ) as { "x-problem-types": Array<{ code: string }> };
    const documented = document["x-problem-types"].map((entry) => entry.code);
    expect(documented.length).toBeGreaterThan(20);
    expect(documented.filter((code) => PROBLEM_CATALOG[code] === undefined)).toEqual([]);
    const undescribed = routes
      .flatMap((route) => route.docs.errors ?? [])
      .filter((error) => !PROBLEM_CATALOG[error.code]?.statuses.includes(error.status))
      .map((error) => `${error.status} ${error.code}`);
    expect(undescribed).toEqual([]);
  });

  it("says for each code when it happens and what to do, in sentences", () => {
    for (const [code, description] of Object.entries(PROBLEM_CATALOG)) {
      expect(description.statuses.length, code).toBeGreaterThan(0);
      for (const status of description.statuses) expect(status >= 400 && status < 600, code).toBe(true);
      expect(description.when, code).toMatch(/^\S.{15,}\.$/s);
      expect(description.action, code).toMatch(/^\S.{10,}\.$/s);
    }
  });
});
