import type { Readiness } from "@platform/runtime";
import { type Request, type Response, Router } from "express";
import { appendVary } from "../http/vary.js";
import { type DocsAsset, mountScriptAsset, rendererAsset } from "./docsAssets.js";
import { docsContentSecurityPolicy, renderDocsPage } from "./docsPage.js";
import { problemPages } from "./problemPages.js";

/** The assets' names carry their version or hash: a browser keeps them until the name changes. */
const IMMUTABLE = "public, max-age=31536000, immutable";

/**
 * Public operations routes. /healthz says the process lives; /readyz only whether the gateway can
 * serve (503 when a required dependency is down): which dependency is down, and /metrics, are for
 * operators on the ops port (main.ts, libs/runtime startOpsServer), not for anyone on the
 * Internet. /openapi.json and /docs describe the mounted routes, /problems their problem types.
 */
export function opsRoutes(options: {
  readiness: Readiness;
  openApi: () => Record<string, unknown>;
  publicBaseUrl: string;
}): Router {
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

  const assets = new Map([rendererAsset(), mountScriptAsset()].map((asset) => [asset.name, asset]));
  const scripts = [...assets.keys()].map((name) => `/docs/assets/${name}`);
  const csp = docsContentSecurityPolicy(options.publicBaseUrl);
  router.get("/docs", (_request, response) => {
    docsHtml ??= renderDocsPage(options.openApi(), scripts);
    // The page is small and names its assets by version: revalidated each time, so a new release shows at once.
    response.setHeader("cache-control", "no-cache");
    response.setHeader("content-security-policy", csp);
    response.type("text/html").send(docsHtml);
  });
  router.get("/docs/assets/:name", async (request, response, next) => {
    const asset = assets.get(String(request.params.name));
    if (asset === undefined) return next();
    await sendAsset(request, response, asset);
  });

  const problems = problemPages(options.publicBaseUrl);
  router.get("/problems", problems.list);
  router.get("/problems/:slug", problems.page);

  return router;
}

async function sendAsset(request: Request, response: Response, asset: DocsAsset): Promise<void> {
  const file = await asset.load();
  response.setHeader("cache-control", IMMUTABLE);
  response.setHeader("etag", file.etag);
  appendVary(response, "Accept-Encoding");
  response.setHeader("content-type", asset.contentType);
  if (request.headers["if-none-match"]?.split(/\s*,\s*/).includes(file.etag)) {
    response.status(304).end();
    return;
  }
  const gzipped = request.acceptsEncodings("gzip", "identity") === "gzip";
  const body = gzipped ? await file.gzipped() : file.body;
  if (gzipped) response.setHeader("content-encoding", "gzip");
  response.setHeader("content-length", body.length);
  response.status(200).end(request.method === "HEAD" ? undefined : body);
}
