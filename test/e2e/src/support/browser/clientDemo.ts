import { createClient } from "@chain-intents/client";

/*
 * What a page on another origin does with the client (bundled for the browser by
 * support/browserPages.ts and run in Chromium by browser.test.ts): exchange an API key, read a page
 * of an account's transactions, wait for one event of the data stream. The results come back as
 * plain data; a failure as its name and message.
 */

export interface DemoResult {
  transactions: Array<{ id: unknown }>;
  asOfBlock: unknown;
  event: { type: string; id: string | undefined };
}

async function exchangeReadAndListen(baseUrl: string, key: { id: string; secret: string }, address: string) {
  const client = createClient({ baseUrl, apiKey: key });
  const page = await client.get("/data/v1/accounts/{address}/transactions", {
    params: { path: { address }, query: { limit: 5 } },
  });
  const abort = new AbortController();
  let event: DemoResult["event"] | undefined;
  for await (const received of client.events.data({ topics: ["heads"] }, { signal: abort.signal })) {
    if (received.type === "head") {
      event = { type: received.type, id: received.id };
      break;
    }
  }
  const body = page as unknown as {
    _embedded?: { items?: Array<{ id: unknown }> };
    as_of?: { block_number?: unknown };
  };
  return {
    transactions: (body._embedded?.items ?? []).map((item) => ({ id: item.id })),
    asOfBlock: body.as_of?.block_number,
    event: event!,
  };
}

/** A plain cross-origin fetch with a bearer token: what any page's script would try. */
async function fetchWithToken(url: string, token: string): Promise<{ status: number } | { error: string }> {
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

Object.assign(globalThis, { clientDemo: { exchangeReadAndListen, fetchWithToken } });
