import { get, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { defineRoute } from "@platform/http";
import { createLogger } from "@platform/log";
import { createMetricsRegistry, watchDependencies } from "@platform/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayApp } from "../app.js";
import { PROBLEM_CATALOG } from "./problemCatalog.js";

// The reference page, its assets and the problem type pages, served by the gateway in process.
const PUBLIC_BASE_URL = "https://api.example";
let server: Server;
let base: string;

const pingRoute = defineRoute({
  method: "get",
  path: "/data/v1/ping",
  operationId: "ping",
  scope: "data:read",
  docs: {
    summary: "Ping <the> API",
    tags: ["test"],
    success: { status: 200, description: "pong", contentType: "application/json", example: { pong: true } },
  },
  async handle() {
    return { status: 200, body: { pong: true } };
  },
});

beforeAll(async () => {
  const app = createGatewayApp({
    log: createLogger({ service: "gateway-ops-test", level: "silent" }),
    guard: async () => ({ keyId: "ak_test", headers: {} }),
    registry: createMetricsRegistry("gateway-ops-test"),
    readiness: watchDependencies([], 60_000),
    routes: [pingRoute],
    publicBaseUrl: PUBLIC_BASE_URL,
    maxBodyBytes: 1024,
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  // The fetches' keep-alive sockets would hold close() for the gateway's keep-alive timeout (65 s).
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function docsPage() {
  const response = await fetch(`${base}/docs`);
  const html = await response.text();
  const scripts = [...html.matchAll(/<script src="([^"]+)"><\/script>/g)].map((match) => match[1]!);
  return { response, html, scripts };
}

describe("GET /docs", () => {
  it("loads the renderer and its mount script from the gateway, under a policy that allows nothing else", async () => {
    const { response, html, scripts } = await docsPage();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(scripts).toEqual([
      expect.stringMatching(/^\/docs\/assets\/scalar-api-reference-\d+\.\d+\.\d+\.js$/),
      expect.stringMatching(/^\/docs\/assets\/mount-[0-9a-f]{16}\.js$/),
    ]);
    expect(html).not.toMatch(/<script>|https?:\/\/(?!api\.example)/);
    const policy = Object.fromEntries(
      response.headers
        .get("content-security-policy")!
        .split("; ")
        .map((directive) => [directive.split(" ")[0], directive.split(" ").slice(1).join(" ")]),
    );
    expect(policy).toEqual({
      "default-src": "'none'",
      "script-src": "'self'",
      "style-src": "'self' 'unsafe-inline'",
      "img-src": "'self' data: blob:",
      "font-src": "'self' data:",
      "connect-src": `'self' ${PUBLIC_BASE_URL}`,
      "frame-ancestors": "'none'",
      "base-uri": "'none'",
      "form-action": "'none'",
    });
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("lists every operation, escaped, for a browser without scripts", async () => {
    const { html } = await docsPage();
    expect(html).toContain("<noscript>");
    expect(html).toContain("<code>GET /data/v1/ping</code> Ping &lt;the&gt; API");
  });

  it("mounts the renderer on the document with no fetch from elsewhere: no fonts, telemetry, agent or proxy", async () => {
    const { scripts } = await docsPage();
    const mount = await fetch(`${base}${scripts[1]}`);
    const text = await mount.text();
    const configuration = JSON.parse(/createApiReference\("#reference", (.*)\);/.exec(text)![1]!) as Record<
      string,
      unknown
    >;
    expect(configuration).toMatchObject({
      url: "/openapi.json",
      withDefaultFonts: false,
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
    });
    expect(configuration).not.toHaveProperty("proxyUrl");
  });

  it("serves the renderer's bundle from its package, immutable, gzipped when asked, 304 on its ETag", async () => {
    const { scripts } = await docsPage();
    const plain = await fetch(`${base}${scripts[0]}`, { headers: { "accept-encoding": "identity" } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(plain.headers.get("content-encoding")).toBeNull();
    const bundle = Buffer.from(await plain.arrayBuffer());
    expect(bundle.length).toBeGreaterThan(1_000_000);
    expect(bundle.toString("utf8")).toContain("createApiReference");
    const etag = plain.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);

    // node's fetch would decompress it: read the bytes as sent.
    const zipped = await rawGet(scripts[0]!, { "accept-encoding": "gzip, br" });
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(zipped.body.length).toBeLessThan(bundle.length / 2);
    expect(gunzipSync(zipped.body).equals(bundle)).toBe(true);

    const again = await fetch(`${base}${scripts[0]}`, { headers: { "if-none-match": etag } });
    expect([again.status, again.headers.get("etag")]).toEqual([304, etag]);
  });

  it("answers an unknown asset with a 404 problem", async () => {
    const response = await fetch(`${base}/docs/assets/other.js`);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  });

  it("leaves the other routes without a content security policy", async () => {
    for (const path of ["/healthz", "/openapi.json"])
      expect((await fetch(`${base}${path}`)).headers.get("content-security-policy"), path).toBeNull();
  });
});

describe("GET /problems/{slug}", () => {
  it("describes a problem code in HTML: its title, code, type, status, when it happens and what to do", async () => {
    const response = await fetch(`${base}/problems/invalid-cursor`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(response.headers.get("vary")).toBe("Accept");
    expect(response.headers.get("content-security-policy")).toMatch(/^default-src 'none'; style-src 'unsafe-inline'/);
    const html = await response.text();
    expect(html).toContain("<h1>Invalid cursor</h1>");
    expect(html).toContain("<code>INVALID_CURSOR</code>");
    expect(html).toContain(`<code>${PUBLIC_BASE_URL}/problems/invalid-cursor</code>`);
    expect(html).toContain("<dt>Status</dt><dd>400</dd>");
    // Code spans of the description are rendered, not shown as backticks.
    expect(html).toContain("<code>page.next_cursor</code>");
    expect(html).not.toContain("`");
  });

  it("answers JSON when asked for it, with the type the problems carry", async () => {
    const response = await fetch(`${base}/problems/tc-not-accepted`, { headers: { accept: "application/json" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await response.json()).toEqual({
      type: `${PUBLIC_BASE_URL}/problems/tc-not-accepted`,
      code: "TC_NOT_ACCEPTED",
      title: "Terms and Conditions not accepted",
      statuses: [403],
      when: PROBLEM_CATALOG.TC_NOT_ACCEPTED!.when,
      action: PROBLEM_CATALOG.TC_NOT_ACCEPTED!.action,
    });
  });

  it("has a page at the type URL of a problem the gateway answers", async () => {
    const problem = (await (await fetch(`${base}/data/v1/nowhere`)).json()) as { type: string; code: string };
    expect(problem.type).toBe(`${PUBLIC_BASE_URL}/problems/not-found`);
    const page = await fetch(`${base}${new URL(problem.type).pathname}`, { headers: { accept: "application/json" } });
    expect(((await page.json()) as { code: string }).code).toBe(problem.code);
  });

  it("answers an unknown code with a 404 problem", async () => {
    const response = await fetch(`${base}/problems/no-such-problem`, { headers: { accept: "application/json" } });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    expect(await response.json()).toMatchObject({
      type: `${PUBLIC_BASE_URL}/problems/not-found`,
      status: 404,
      code: "NOT_FOUND",
      detail: "no problem type no-such-problem; /problems lists them",
    });
    expect((await fetch(`${base}/problems/INVALID_CURSOR`)).status).toBe(404);
  });

  it("lists every problem type at /problems, in HTML and JSON", async () => {
    const list = (await (await fetch(`${base}/problems`, { headers: { accept: "application/json" } })).json()) as {
      problems: Array<{ code: string; type: string }>;
    };
    expect(list.problems.map((problem) => problem.code)).toEqual(Object.keys(PROBLEM_CATALOG));
    const html = await (await fetch(`${base}/problems`)).text();
    for (const problem of list.problems) expect(html).toContain(`href="${new URL(problem.type).pathname}"`);
  });
});

function rawGet(path: string, headers: Record<string, string>) {
  return new Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    get(`${base}${path}`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
      response.on("error", reject);
    }).on("error", reject);
  });
}

describe("Vary on the public, cacheable operations answers", () => {
  // CORS names Origin in Vary for any request with an Origin; the routes add theirs beside it.
  const varyOf = (response: Response) =>
    (response.headers.get("vary") ?? "")
      .split(",")
      .map((field) => field.trim().toLowerCase())
      .sort();

  it("keeps Origin beside Accept on the problem pages and their list", async () => {
    for (const path of ["/problems", "/problems/invalid-cursor"]) {
      const response = await fetch(`${base}${path}`, { headers: { origin: "https://elsewhere.example" } });
      expect(response.status).toBe(200);
      expect(varyOf(response)).toEqual(["accept", "origin"]);
    }
  });

  it("keeps Origin beside Accept-Encoding on the reference page's assets", async () => {
    const { scripts } = await docsPage();
    const response = await fetch(`${base}${scripts[0]}`, { headers: { origin: "https://elsewhere.example" } });
    expect(response.status).toBe(200);
    expect(varyOf(response)).toEqual(["accept-encoding", "origin"]);
    await response.arrayBuffer();
  });
});
