import { Router } from "express";
import type { Readiness } from "@platform/runtime";
import type { Registry } from "prom-client";
import { renderDocsPage } from "./docsPage.js";

/**
 * Public operations routes. /healthz says the process lives; /readyz says whether the gateway can
 * serve (503 when a required dependency is down) and lists every dependency with its state,
 * backends included; /openapi.json and /docs describe the mounted routes.
 */
export function opsRoutes(options: { readiness: Readiness; registry: Registry; openApi: () => Record<string, unknown> }): Router {
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
    response.status(snapshot.ready ? 200 : 503).json({ status: snapshot.ready ? "ready" : "not_ready", checks: snapshot.checks });
  });

  router.get("/openapi.json", (_request, response) => {
    openApiJson ??= JSON.stringify(options.openApi());
    response.type("application/json").send(openApiJson);
  });

  router.get("/docs", (_request, response) => {
    docsHtml ??= renderDocsPage(options.openApi());
    response.type("text/html").send(docsHtml);
  });

  router.get("/metrics", (_request, response, next) => {
    options.registry
      .metrics()
      .then((text) => response.type(options.registry.contentType).send(text))
      .catch(next);
  });

  return router;
}
