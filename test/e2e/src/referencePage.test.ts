import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferencePage } from "../../../services/gateway/src/testSupport/referencePage.js";

/*
 * Issue 44, point 6: the reference page (/docs) in Debian's Chromium, headless, driven by
 * playwright-core. A deep link to an operation renders it: the test finds the operation's heading
 * and its TypeScript sample of this API's client as text on the page; the introduction's quickstart
 * too. The page is served by the gateway alone, in process: it needs no stack.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

let docs: Awaited<ReturnType<typeof startReferencePage>>;
let browser: Browser;

beforeAll(async () => {
  docs = await startReferencePage();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await docs?.close();
});

/** A page opened at `/docs#<fragment>`, with its console errors and any request beyond loopback. */
async function openAt(fragment: string): Promise<{ page: Page; consoleErrors: string[]; outside: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const consoleErrors: string[] = [];
  const outside: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
  page.on("request", (request) => {
    if (!/^(http:\/\/127\.0\.0\.1[:/]|data:|blob:)/.test(request.url())) outside.push(request.url());
  });
  await page.goto(`${docs.url}/docs#${fragment}`);
  return { page, consoleErrors, outside };
}

/** The heading, visible in the window the deep link opened (not merely somewhere on the page). */
async function expectHeadingInView(page: Page, name: string): Promise<void> {
  const heading = page.getByRole("heading", { name, exact: true }).first();
  await heading.waitFor({ state: "visible", timeout: 60_000 });
  await expect.poll(async () => (await heading.boundingBox())?.y ?? -1, { timeout: 10_000 }).toBeGreaterThanOrEqual(0);
  expect((await heading.boundingBox())!.y).toBeLessThan(1000);
}

describe("the reference page's deep links in Chromium", () => {
  it.each([
    {
      fragment: "tag/intents/POST/intents/v1/preflight",
      heading: "Check an order before signing it",
      call: 'await client.post("/intents/v1/preflight", {',
    },
    {
      fragment: "tag/data-events/GET/data/v1/events",
      heading: "Stream of data changes (server-sent events)",
      call: 'client.events.data({ topics: ["heads", "pools", "prices"] })',
    },
    {
      fragment: "tag/data-accounts/GET/data/v1/accounts/{address}/transactions",
      heading: "Transactions of an account",
      call: 'client.paginate("/data/v1/accounts/{address}/transactions", {',
    },
  ])(
    "renders $fragment with its heading and its TypeScript sample of the client",
    async ({ fragment, heading, call }) => {
      const { page, consoleErrors, outside } = await openAt(fragment);
      await expectHeadingInView(page, heading);
      const sample = page.locator("code", { hasText: call }).first();
      await sample.waitFor({ state: "visible", timeout: 30_000 });
      expect(await sample.textContent()).toContain('import { createClient } from "@chain-intents/client";');
      expect(outside).toEqual([]);
      expect(consoleErrors).toEqual([]);
      await page.close();
    },
    120_000,
  );

  it("renders the introduction's quickstart", async () => {
    const { page, consoleErrors } = await openAt("description/quickstart");
    await expectHeadingInView(page, "Quickstart");
    const sample = page.locator("code", { hasText: 'await client.get("/data/v1/coin/price/latest")' }).first();
    await sample.waitFor({ state: "visible", timeout: 30_000 });
    expect(await page.locator("body").textContent()).toContain("npm install ./chain-intents-client-<version>.tgz");
    expect(consoleErrors).toEqual([]);
    await page.close();
  }, 120_000);
});
