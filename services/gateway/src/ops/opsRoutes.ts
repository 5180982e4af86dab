import type { Readiness } from "@platform/runtime";
import { Router } from "express";
import { renderDocsPage } from "./docsPage.js";

/**
 * Public operations routes. /healthz says the process lives; /readyz only whether the gateway can
 * serve (503 when a required dependency is down): which dependency is down, and /metrics, are for
 * operators on the ops port (main.ts, libs/runtime startOpsServer), not for anyone on the
 * Internet. /openapi.json and /docs describe the mounted routes.
 */
export function opsRoutes(options: { readiness: Readiness; openApi: () => Record<string, unknown> }): Router {
  const router = Router();
  let docsHtml: string | undefined;
  let openApiJson: string | undefined;

  router.get("/healthz", (_request, response) => {
    response.setHeader("cache-control", "no-store");
    response.json({ status: "ok" });
  });

  router.get("/readyz", (_request, response) => {
    const snapshot = options.readiness.snapshot();
    response.setHeader("cache-control", "no-store");
    response.status(snapshot.ready ? 200 : 503).json({ status: snapshot.ready ? "ready" : "not_ready" });
  });

  router.get("/openapi.json", (_request, response) => {
    openApiJson ??= JSON.stringify(options.openApi());
    response.type("application/json").send(openApiJson);
  });

  router.get("/docs", (_request, response) => {
    docsHtml ??= renderDocsPage(options.openApi());
    response.type("text/html").send(docsHtml);
  });

  return router;
}
