import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  authCli,
  freePorts,
  type RunningStack,
  repoRoot,
  silentProgress,
  startStack,
  testRuntime,
} from "@platform/local-stack";
import { tempDir, waitFor } from "@platform/testing";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RELAXED_BLOCK_TIME_MS } from "./support/blockTime.js";
import type { ClientDemo } from "./support/browser/clientDemo.js";
import { bundleClientDemo, type ClientDemoBundle, type StaticSite, startStaticSite } from "./support/browserPages.js";
import { type InstalledClient, installedClient } from "./support/clientPackage.js";
import { compareIds, openEventStream, type ReadEvent } from "./support/eventStream.js";

/*
 * The API in a real browser: Debian's Chromium, headless, driven by playwright-core. The reference
 * page (/docs) and its "try it"; the client library bundled for the browser, used by a page on an
 * origin the gateway allows (CORS_ALLOWED_ORIGINS); and a page on another origin, refused. The
 * whole demo stack runs (native network with its block timer, simulator), so the data stream has
 * heads to send.
 *
 * Its tokens live the default 15 minutes, so the plain-HTTP data stream's resume test, which holds
 * one stream open across several blocks, runs here too (liveUpdates' tokens live 5 s, and a stream
 * closes when its token expires).
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
// A seeded dev account with transfers (deploy/devnet's native seed).
const ALICE = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";
const TRY_IT_ROUTE = { method: "get", path: "/data/v1/subnets/latest" };

const state = tempDir("e2e-browser");
/** The client's tarball, installed with npm outside the workspace: the page's bundle is made from it. */
let client: InstalledClient;
let bundle: ClientDemoBundle;
let stack: RunningStack;
let gateway: string;
let allowed: StaticSite;
let refused: StaticSite;
let browser: Browser;
let key: { id: string; secret: string };
/** A browser key (pk_ secret) bound to the allowed site's origin: what the page carries. */
let browserKey: { id: string; secret: string };
/** The app's backend: mints tokens with the server key for its page (getAccessToken). */
let backend: { url: string; minted: number; close(): Promise<void> };

beforeAll(async () => {
  client = await installedClient();
  bundle = await bundleClientDemo(client);
  [allowed, refused] = await Promise.all([startStaticSite(bundle.script), startStaticSite(bundle.script)]);
  stack = await startStack({
    stateDir: state.path,
    ports: await freePorts(),
    detached: false,
    runtime: testRuntime(),
    progress: silentProgress,
    nativeNetwork: true,
    serviceEnv: { gateway: { CORS_ALLOWED_ORIGINS: allowed.origin } },
    nativeBlockTimeMs: RELAXED_BLOCK_TIME_MS,
  });
  gateway = stack.descriptor.gatewayUrl;
  const auth = stack.descriptor.processes.find((entry) => entry.name === "auth")!;
  key = JSON.parse(
    await authCli(
      testRuntime(),
      ["keys", "create", "--name", "e2e-browser", "--scopes", "data:read", "--tier", "unlimited", "--json"],
      { AUTH_ADMIN_GRPC_TARGET: auth.adminGrpcTarget! },
    ),
  ) as { id: string; secret: string };
  browserKey = JSON.parse(
    await authCli(
      testRuntime(),
      [
        "keys",
        "create",
        "--name",
        "e2e-page",
        "--scopes",
        "data:read",
        "--kind",
        "browser",
        "--origin",
        allowed.origin,
        "--json",
      ],
      { AUTH_ADMIN_GRPC_TARGET: auth.adminGrpcTarget! },
    ),
  ) as { id: string; secret: string };
  backend = await startTokenBackend();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await backend?.close();
  await stack?.stop();
  await Promise.all([allowed?.close(), refused?.close()]);
  state.remove();
});

async function accessToken(): Promise<string> {
  const answer = await fetch(`${gateway}/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
  });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { access_token: string }).access_token;
}

/**
 * A small app backend on loopback: `POST /token` mints an access token with the server key (which
 * never leaves this process) and answers `{ accessToken, expiresAt }` to the page.
 */
async function startTokenBackend(): Promise<{ url: string; minted: number; close(): Promise<void> }> {
  const state = { url: "", minted: 0, close: async () => {} };
  const server = createServer(async (request, response) => {
    const cors = { "access-control-allow-origin": allowed.origin };
    if (request.method !== "POST" || request.url !== "/token") return response.writeHead(404, cors).end();
    const sentAt = Date.now();
    const answer = await fetch(`${gateway}/auth`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
    });
    const body = (await answer.json()) as { access_token: string; expires_in: string };
    state.minted += 1;
    response
      .writeHead(200, { ...cors, "content-type": "application/json", "cache-control": "no-store" })
      .end(JSON.stringify({ accessToken: body.access_token, expiresAt: sentAt + Number(body.expires_in) * 1000 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

/** A new page whose console errors and requests to anywhere but loopback are collected. */
async function newPage(): Promise<{ page: Page; consoleErrors: string[]; outside: string[] }> {
  const page = await browser.newPage();
  const consoleErrors: string[] = [];
  const outside: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
  page.on("request", (request) => {
    if (!/^(http:\/\/127\.0\.0\.1[:/]|data:|blob:)/.test(request.url())) outside.push(request.url());
  });
  return { page, consoleErrors, outside };
}

/**
 * The reference page, once the renderer has laid out its table of contents: the operations it
 * lists, as `method path`, from each entry's id (`api/tag/<tag>/<METHOD>/<path>`).
 */
async function openDocs(page: Page): Promise<string[]> {
  await page.goto(`${gateway}/docs`);
  const entries = page.locator("[data-sidebar-id]");
  await entries.first().waitFor({ timeout: 60_000 });
  await expect.poll(() => entries.count(), { timeout: 30_000 }).toBeGreaterThan(20);
  const ids = await entries.evaluateAll((elements) =>
    elements.map((element) => element.getAttribute("data-sidebar-id")),
  );
  return ids.flatMap((id) => {
    const match = /^api\/tag\/[^/]+\/([A-Z]+)(\/.*)$/.exec(id ?? "");
    return match ? [`${match[1]!.toLowerCase()} ${match[2]}`] : [];
  });
}

describe("the reference page in Chromium", () => {
  it("lists every operation of /openapi.json in its table of contents, with nothing fetched from outside the gateway", async () => {
    const document = (await (await fetch(`${gateway}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const expected = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    expect(expected.length).toBeGreaterThan(20);
    const { page, consoleErrors, outside } = await newPage();
    const rendered = await openDocs(page);
    expect([...new Set(rendered)].sort()).toEqual([...expected].sort());
    expect(outside).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await page.close();
  }, 120_000);

  it('runs "try it" on a Data API route with a token typed into the page, and gets a 200', async () => {
    const token = await accessToken();
    const { page, consoleErrors } = await newPage();
    await openDocs(page);
    await page.getByPlaceholder("Token").first().fill(token);
    // The table of contents takes the page to the operation, which renders it.
    await page
      .locator(`[data-sidebar-id$="/${TRY_IT_ROUTE.method.toUpperCase()}${TRY_IT_ROUTE.path}"]`)
      .first()
      .click();
    const label = `(${TRY_IT_ROUTE.method} ${TRY_IT_ROUTE.path})`;
    await page.locator(".show-api-client-button", { hasText: label }).first().click();
    const sent = page.waitForResponse(
      (response) =>
        response.url().startsWith(`${gateway}${TRY_IT_ROUTE.path}`) && response.request().method() === "GET",
    );
    await page.getByRole("dialog").getByRole("button", { name: /^Send/ }).first().click();
    const response = await sent;
    expect(response.status()).toBe(200);
    expect(await response.request().headerValue("authorization")).toBe(`Bearer ${token}`);
    await expect.poll(() => page.getByRole("dialog").innerText(), { timeout: 10_000 }).toContain("200 OK");
    expect(consoleErrors).toEqual([]);
    await page.close();
  }, 120_000);
});

describe("the client library on another origin", () => {
  it("is bundled from the packed tarball as npm installed it, never from the workspace's sources", () => {
    const fromPackage = bundle.inputs.filter((input) => input.startsWith("node_modules/@chain-intents/client/"));
    // The package's build, as its exports give it to a bundler: no TypeScript source of it.
    expect(fromPackage).toContain("node_modules/@chain-intents/client/dist/index.js");
    expect(fromPackage.every((input) => input.startsWith("node_modules/@chain-intents/client/dist/"))).toBe(true);
    // Everything but the demo itself comes from the install's node_modules: nothing from the repository.
    expect(bundle.inputs.filter((input) => !input.startsWith("node_modules/"))).toEqual(["clientDemo.ts"]);
    expect(bundle.inputs.some((input) => input.includes("libs/client"))).toBe(false);
    expect(client.project.startsWith(repoRoot)).toBe(false);
  });

  it("exchanges a key, reads a page of an account's transactions and receives a data event, from an allowed origin", async () => {
    // The seed's transfers are indexed once the accounts projection has caught up with them.
    await waitFor(
      async () => {
        const answer = await fetch(`${gateway}/data/v1/accounts/${ALICE}/transactions?limit=5`, {
          headers: { authorization: `Bearer ${await accessToken()}` },
        });
        const body = (await answer.json()) as { _embedded?: { items?: unknown[] } };
        return answer.status === 200 && (body._embedded?.items?.length ?? 0) > 0;
      },
      { what: "the seeded account's transactions", timeoutMs: 90_000, intervalMs: 2_000 },
    );
    const { page, consoleErrors } = await newPage();
    const gatewayAnswers: Array<{ method: string; path: string; status: number; allowOrigin: string | null }> = [];
    page.on("response", (response) => {
      if (!response.url().startsWith(gateway)) return;
      gatewayAnswers.push({
        method: response.request().method(),
        path: new URL(response.url()).pathname,
        status: response.status(),
        allowOrigin: response.headers()["access-control-allow-origin"] ?? null,
      });
    });
    await page.goto(`${allowed.origin}/`);
    const read = await page.evaluate(
      ([base, apiKey, address]) =>
        (globalThis as unknown as { clientDemo: ClientDemo }).clientDemo.readTransactions(base, apiKey, address),
      [gateway, browserKey, ALICE] as const,
    );
    expect(read.ids.length, JSON.stringify(gatewayAnswers)).toBeGreaterThan(0);
    expect(read.asOfBlock).toEqual(expect.any(Number));
    const event = await page
      .evaluate(
        (timeoutMs) => (globalThis as unknown as { clientDemo: ClientDemo }).clientDemo.firstDataEvent(timeoutMs),
        60_000,
      )
      .catch((error: Error) => {
        throw new Error(
          `${error.message}; answers: ${JSON.stringify(gatewayAnswers)}; console: ${consoleErrors.join(" | ")}`,
        );
      });
    expect(event).toMatchObject({ type: "head", id: expect.stringMatching(/^\d+-\d+$/) });
    expect(gatewayAnswers).toEqual(
      expect.arrayContaining([
        { method: "POST", path: "/auth", status: 200, allowOrigin: allowed.origin },
        {
          method: "GET",
          path: `/data/v1/accounts/${ALICE}/transactions`,
          status: 200,
          allowOrigin: allowed.origin,
        },
        { method: "GET", path: "/data/v1/events", status: 200, allowOrigin: allowed.origin },
      ]),
    );
    expect(consoleErrors).toEqual([]);
    await page.close();
  }, 240_000);

  it("is refused from an origin the gateway does not allow: the browser's fetch fails on CORS", async () => {
    const token = await accessToken();
    const { page, consoleErrors } = await newPage();
    await page.goto(`${refused.origin}/`);
    const fetchFrom = (origin: Page) =>
      origin.evaluate(
        ([url, bearer]) => (globalThis as unknown as { clientDemo: ClientDemo }).clientDemo.fetchWithToken(url, bearer),
        [`${gateway}/data/v1/subnets/latest`, token] as const,
      );
    expect(await fetchFrom(page)).toEqual({ error: "TypeError: Failed to fetch" });
    expect(consoleErrors.join("\n")).toMatch(/blocked by CORS policy/);
    // The same call from the allowed origin goes through: the refusal is the origin's.
    const { page: allowedPage } = await newPage();
    await allowedPage.goto(`${allowed.origin}/`);
    expect(await fetchFrom(allowedPage)).toEqual({ status: 200 });
    await Promise.all([page.close(), allowedPage.close()]);
  }, 60_000);
});

describe("safe browser credentials", () => {
  it("a page uses tokens its backend mints (getAccessToken), never holding a secret", async () => {
    const { page, consoleErrors } = await newPage();
    await page.goto(`${allowed.origin}/`);
    const read = await page.evaluate(
      ([base, tokenUrl]) =>
        (globalThis as unknown as { clientDemo: ClientDemo }).clientDemo.readWithBackend(base, tokenUrl),
      [gateway, backend.url] as const,
    );
    expect(read.subnets).toBeGreaterThan(0);
    // Two concurrent calls, one token.
    expect(read.tokenCalls).toBe(1);
    expect(backend.minted).toBe(1);
    expect(consoleErrors).toEqual([]);
    await page.close();
  }, 60_000);

  it("a browser key is answered only for its origins, and its tokens are refused from any other Origin", async () => {
    expect(browserKey.secret).toMatch(/^pk_/);
    const exchange = (origin?: string) =>
      fetch(`${gateway}/auth`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(origin === undefined ? {} : { origin }) },
        body: JSON.stringify({ type: "API_KEY", username: browserKey.id, password: browserKey.secret }),
      });
    for (const origin of [refused.origin, undefined]) {
      const answer = await exchange(origin);
      expect(answer.status).toBe(401);
      expect(answer.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(await answer.json()).toMatchObject({
        status: 401,
        code: "KEY_ORIGIN_NOT_ALLOWED",
        detail: expect.stringMatching(/browser key/),
      });
    }
    const granted = await exchange(allowed.origin);
    expect(granted.status).toBe(200);
    const { access_token: token } = (await granted.json()) as { access_token: string };
    const read = (origin?: string) =>
      fetch(`${gateway}/data/v1/subnets/latest`, {
        headers: { authorization: `Bearer ${token}`, ...(origin === undefined ? {} : { origin }) },
      });
    expect((await read(allowed.origin)).status).toBe(200);
    const elsewhere = await read(refused.origin);
    expect(elsewhere.status).toBe(403);
    expect(await elsewhere.json()).toMatchObject({ code: "KEY_ORIGIN_NOT_ALLOWED" });
    expect((await read()).status).toBe(403);
    // Its own, smaller budget: the browser tier's policy.
    expect((await read(allowed.origin)).headers.get("ratelimit-policy")).toBe('"default";q=20;w=2');
  }, 60_000);
});

describe("GET /data/v1/events over plain HTTP", () => {
  const url = (topics: string) => `${gateway}/data/v1/events?topics=${topics}`;
  const changes = (events: ReadEvent[]) => events.filter((event) => ["head", "pool", "price"].includes(event.event));

  it("streams each read model's new head and each pool snapshot in order, and resumes with no gap and no repeat", async () => {
    const control = await openEventStream(url("heads,pools"), await accessToken());
    const cut = await openEventStream(url("heads,pools"), await accessToken());
    expect([control.status, cut.status]).toEqual([200, 200]);
    // Each starts where its data-query process's feed stood, which may differ by a few entries:
    // compare from the later of the two.
    const from = [
      (await cut.next((event) => event.event === "live")).id!,
      (await control.next((event) => event.event === "live")).id!,
    ].sort(compareIds)[1]!;
    // A few blocks' worth, then the cut stream goes away mid-flow.
    const cutAt = await cut.next((event) => event.event === "pool", 30_000);
    cut.close();
    const pools = (await control.next((event) => event.event === "pool", 30_000)).data as Record<string, unknown>;
    expect(pools).toMatchObject({ netuid: expect.any(Number), price_tao: expect.any(String) });
    for (const model of ["market", "subnets", "accounts"])
      await control.next(
        (event) => event.event === "head" && (event.data as { read_model: string }).read_model === model,
        30_000,
      );
    const resumed = await openEventStream(url("heads,pools"), await accessToken(), cutAt.id);
    await resumed.next((event) => event.event === "live");
    // Wait until the control has seen what the resumed stream has caught up to, then compare.
    const lastResumed = changes(resumed.events).at(-1)!.id!;
    await control.next((event) => event.id === lastResumed, 30_000);
    const idsFrom = (events: ReadEvent[]) =>
      changes(events)
        .map((event) => event.id!)
        .filter((id) => compareIds(id, from) > 0);
    const cutIds = idsFrom(cut.events);
    const joined = [...cutIds.slice(0, cutIds.indexOf(cutAt.id!) + 1), ...idsFrom(resumed.events)];
    const controlIds = idsFrom(control.events);
    expect(joined).toEqual(controlIds.slice(0, controlIds.indexOf(lastResumed) + 1));
    const heads = changes(control.events).filter((event) => event.event === "head");
    expect(heads[0]!.data).toMatchObject({
      read_model: expect.stringMatching(/^(accounts|market|subnets)$/),
      as_of: { block_number: expect.any(Number), block_hash: expect.stringMatching(/^0x/) },
    });
    control.close();
    resumed.close();
  }, 120_000);
});
