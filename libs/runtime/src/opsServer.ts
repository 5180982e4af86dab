import { createServer, type Server } from "node:http";
import type { Registry } from "prom-client";
import type { Readiness } from "./readiness.js";

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The operations endpoint of a backend service: /healthz (the process lives), /readyz (every
 * dependency answers, 503 otherwise, with each dependency listed) and /metrics for Prometheus.
 * It carries no data and binds where the operator says, separately from the gRPC port.
 */
export async function startOpsServer(options: {
  host: string;
  port: number;
  readiness: Readiness;
  registry: Registry;
}): Promise<OpsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end("method not allowed\n");
      return;
    }
    if (path === "/healthz") {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "ok" }));
      return;
    }
    if (path === "/readyz") {
      const snapshot = options.readiness.snapshot();
      response
        .writeHead(snapshot.ready ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" })
        .end(JSON.stringify({ status: snapshot.ready ? "ready" : "not_ready", checks: snapshot.checks }));
      return;
    }
    if (path === "/metrics") {
      options.registry
        .metrics()
        .then((text) => response.writeHead(200, { "content-type": options.registry.contentType }).end(text))
        .catch(() => response.writeHead(500).end());
      return;
    }
    response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  return {
    port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
