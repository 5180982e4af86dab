import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/**
 * A static site on loopback: the page a browser test opens on an origin other than the gateway's,
 * with the client library bundled for the browser (support/browser/clientDemo.ts, by esbuild, from
 * the client's TypeScript sources). `origin` is what the browser sends as `Origin`.
 */
export interface StaticSite {
  origin: string;
  close(): Promise<void>;
}

/** The client and the demo's functions as one browser script (an IIFE that sets `globalThis.clientDemo`). */
export async function bundleClientDemo(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./browser/clientDemo.ts", import.meta.url))],
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "chrome120",
    conditions: ["@platform/source"],
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

export async function startStaticSite(script: string): Promise<StaticSite> {
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>client demo</title>
<link rel="icon" href="data:,"><script src="/client-demo.js"></script></head><body>client demo</body></html>`;
  const server: Server = createServer((request, response) => {
    if (request.url === "/client-demo.js") {
      response.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(script);
      return;
    }
    if (request.url === "/") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
