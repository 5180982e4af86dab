import { createServer, type Server } from "node:http";

/** /healthz (the process answers) and /readyz (the simulator has started its loops). */
export async function startOpsServer(
  host: string,
  port: number,
  isReady: () => boolean,
): Promise<{ server: Server; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path === "/healthz")
      return void response.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
    if (path === "/readyz") {
      const ready = isReady();
      return void response
        .writeHead(ready ? 200 : 503, { "content-type": "application/json" })
        .end(JSON.stringify({ status: ready ? "ready" : "starting" }));
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return { server, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
