import type { AddressInfo } from "node:net";
import { createLogger } from "@platform/log";
import { createMetricsRegistry, watchDependencies } from "@platform/runtime";
import { createGatewayApp } from "../app.js";
import { HttpProblem } from "../HttpProblem.js";
import { defaultGatewayRoutes } from "../openapi/document.js";

/**
 * The gateway's reference page alone, in process on loopback: `/docs`, its assets and
 * `/openapi.json` of the default configuration's routes, whose backends are never called (every
 * API call is refused as unauthenticated). For browser tests of the page that need no stack.
 */
export async function startReferencePage(): Promise<{ url: string; close(): Promise<void> }> {
  const app = createGatewayApp({
    log: createLogger({ service: "gateway-reference-page", level: "silent" }),
    guard: async () => {
      throw new HttpProblem({
        code: "UNAUTHENTICATED",
        grpcStatus: 16,
        detail: "the reference page's test server serves no API calls",
        headers: {},
      });
    },
    registry: createMetricsRegistry("gateway-reference-page"),
    readiness: watchDependencies([], 60_000),
    routes: defaultGatewayRoutes(),
    publicBaseUrl: "http://127.0.0.1:8080",
    maxBodyBytes: 1024,
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
