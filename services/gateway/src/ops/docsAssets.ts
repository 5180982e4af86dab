import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { gzip } from "node:zlib";

/** A file the /docs page loads, kept in memory once read, gzipped once asked for so. */
export interface DocsAsset {
  /** Under /docs/assets/, with the version or content hash in the name: its answer is immutable. */
  name: string;
  contentType: string;
  /** The file's bytes and their strong ETag; read on first use. */
  load(): Promise<{ body: Buffer; etag: string; gzipped(): Promise<Buffer> }>;
}

const gzipAsync = promisify(gzip);

/**
 * The renderer's standalone browser bundle (Scalar's API reference, one self-contained script with
 * its styles) from the gateway's own dependency, so the page needs no CDN. Its package exports no
 * path to the bundle: it is found beside the package's entry point.
 */
export function rendererAsset(): DocsAsset {
  const entry = createRequire(import.meta.url).resolve("@scalar/api-reference");
  const packageRoot = join(dirname(entry), "..");
  const { version } = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version: string };
  return fileAsset(
    `scalar-api-reference-${version}.js`,
    "text/javascript; charset=utf-8",
    join(packageRoot, "dist", "browser", "standalone.js"),
  );
}

/**
 * The script that mounts the renderer on the page: served as a file, not inline, so the page's
 * Content-Security-Policy allows scripts from the gateway only. The renderer is told to fetch
 * nothing from elsewhere (no web fonts, telemetry, AI agent or request proxy): "try it" calls the
 * API directly, from the page's own origin.
 */
export function mountScriptAsset(): DocsAsset {
  const configuration = {
    url: "/openapi.json",
    slug: "api",
    // The table of contents lists every operation from the start, not only the first tag's.
    defaultOpenAllTags: true,
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: "never",
    persistAuth: false,
    documentDownloadType: "json",
    authentication: { preferredSecurityScheme: "bearerAuth" },
  };
  const text = `Scalar.createApiReference("#reference", ${JSON.stringify(configuration)});\n`;
  const body = Buffer.from(text);
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 16);
  return memoryAsset(`mount-${hash}.js`, "text/javascript; charset=utf-8", body);
}

function fileAsset(name: string, contentType: string, file: string): DocsAsset {
  let loaded: ReturnType<DocsAsset["load"]> | undefined;
  return {
    name,
    contentType,
    load: () => {
      loaded ??= readFile(file).then(withEtagAndGzip);
      // A failed read (a package missing from an image) is tried again by the next request.
      loaded.catch(() => {
        loaded = undefined;
      });
      return loaded;
    },
  };
}

function memoryAsset(name: string, contentType: string, body: Buffer): DocsAsset {
  const loaded = withEtagAndGzip(body);
  return { name, contentType, load: async () => loaded };
}

function withEtagAndGzip(body: Buffer): Awaited<ReturnType<DocsAsset["load"]>> {
  let gzipped: Promise<Buffer> | undefined;
  return {
    body,
    etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
    gzipped: () => {
      gzipped ??= gzipAsync(body, { level: 9 });
      return gzipped;
    },
  };
}
