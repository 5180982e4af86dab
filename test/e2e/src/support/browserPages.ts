import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { InstalledClient } from "./clientPackage.js";

/**
 * A static site on loopback: the page a browser test opens on an origin other than the gateway's,
 * with the client library bundled for the browser (support/browser/clientDemo.ts, by esbuild). The
 * client comes from its tarball as npm installed it (clientPackage.ts), not from the workspace's
 * sources: the bundle is what an integrator's bundler makes of the published package. `origin` is
 * what the browser sends as `Origin`.
 */
export interface StaticSite {
  origin: string;
  close(): Promise<void>;
}

export interface ClientDemoBundle {
  /** The client and the demo's functions as one browser script (an IIFE that sets `globalThis.clientDemo`). */
  script: string;
  /** The files esbuild read (its metafile's inputs), relative to the install's project folder. */
  inputs: string[];
}

/**
 * Bundles the demo inside the install's project, as a file of that project would be: esbuild
 * resolves `@chain-intents/client` (and its dependencies) from the project's node_modules with the
 * browser's conditions, so the package's `exports` pick its build (`dist`), and nothing resolves to
 * the workspace (no `@platform/source` condition, no workspace folder above).
 */
export async function bundleClientDemo(client: InstalledClient): Promise<ClientDemoBundle> {
  const demo = fileURLToPath(new URL("./browser/clientDemo.ts", import.meta.url));
  const result = await build({
    stdin: {
      contents: readFileSync(demo, "utf8"),
      loader: "ts",
      resolveDir: client.project,
      sourcefile: "clientDemo.ts",
    },
    absWorkingDir: client.project,
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "chrome120",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  return { script: result.outputFiles[0]!.text, inputs: Object.keys(result.metafile.inputs) };
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
