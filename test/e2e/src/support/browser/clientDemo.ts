import { type ApiClient, createClient } from "@chain-intents/client";

/*
 * What a page on another origin does with the client (bundled for the browser by
 * support/browserPages.ts and run in Chromium by browser.test.ts): exchange an API key and read a
 * page of an account's transactions, then wait for an event of the data stream. Results come back
 * to the test as plain data.
 */

export interface ClientDemo {
  readTransactions(
    baseUrl: string,
    key: { id: string; secret: string },
    address: string,
  ): Promise<{ ids: unknown[]; asOfBlock: unknown }>;
  firstDataEvent(timeoutMs: number): Promise<{ type: string; id: string | undefined }>;
  fetchWithToken(url: string, token: string): Promise<{ status: number } | { error: string }>;
  /**
   * A client with no credential at all: `getAccessToken` asks the app's backend (`tokenUrl`),
   * which mints tokens with its secret key. Reads one route; says how often the backend was asked.
   */
  readWithBackend(baseUrl: string, tokenUrl: string): Promise<{ subnets: number; tokenCalls: number }>;
}

let client: ApiClient | undefined;

const demo: ClientDemo = {
  async readTransactions(baseUrl, key, address) {
    client = createClient({ baseUrl, apiKey: key });
    const page = (await client.get("/data/v1/accounts/{address}/transactions", {
      params: { path: { address }, query: { limit: 5 } },
    })) as { _embedded?: { items?: Array<{ id?: unknown }> }; as_of?: { block_number?: unknown } };
    return { ids: (page._embedded?.items ?? []).map((item) => item.id), asOfBlock: page.as_of?.block_number };
  },

  async firstDataEvent(timeoutMs) {
    if (client === undefined) throw new Error("readTransactions first: it makes the client");
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      for await (const event of client.events.data({ topics: ["heads"] }, { signal: abort.signal })) {
        if (event.type === "head") return { type: event.type, id: event.id };
      }
      throw new Error(`no head event within ${timeoutMs} ms`);
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  },

  async readWithBackend(baseUrl, tokenUrl) {
    let tokenCalls = 0;
    const app = createClient({
      baseUrl,
      getAccessToken: async () => {
        tokenCalls += 1;
        const answer = (await (await fetch(tokenUrl, { method: "POST" })).json()) as {
          accessToken: string;
          expiresAt: number;
        };
        return answer;
      },
    });
    const [first] = await Promise.all([app.get("/data/v1/subnets/latest"), app.get("/data/v1/subnets/latest")]);
    const items = (first as { _embedded?: { items?: unknown[] } })._embedded?.items ?? [];
    return { subnets: items.length, tokenCalls };
  },

  /** A plain cross-origin fetch with a bearer token: what any page's script would try. */
  async fetchWithToken(url, token) {
    try {
      const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      return { status: response.status };
    } catch (error) {
      return { error: `${(error as Error).name}: ${(error as Error).message}` };
    }
  },
};

Object.assign(globalThis, { clientDemo: demo });
