import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAppTokenSource } from "./appTokens.js";
import { createClient } from "./client.js";
import { ProblemError } from "./problem.js";
import { type FakeApi, KEY, sendJson, startFakeApi } from "./testing/fakeApi.js";

// `getAccessToken`: the app's backend mints tokens (here with the fake gateway's POST /auth and
// the secret key, as a real backend would), the client in the page never sees a secret.
let fake: FakeApi;
const STATS = "/data/v1/network/stats/latest";

beforeEach(async () => {
  fake = await startFakeApi();
  fake.route("GET", STATS, (_request, response) => sendJson(response, 200, { ok: true }));
});

afterEach(async () => {
  await fake.close();
});

/** The app's backend: exchanges its secret key at POST /auth and hands out the access token. */
function backend(form: "string" | "object" = "object") {
  const minted: string[] = [];
  const getAccessToken = async () => {
    const sentAt = Date.now();
    const response = await fetch(`${fake.url}/auth`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "API_KEY", username: KEY.id, password: KEY.secret }),
    });
    const answer = (await response.json()) as { access_token: string; expires_in: string };
    minted.push(answer.access_token);
    return form === "string"
      ? answer.access_token
      : { accessToken: answer.access_token, expiresAt: sentAt + Number(answer.expires_in) * 1000 };
  };
  return { minted, getAccessToken };
}

describe("createClient({ getAccessToken })", () => {
  it("gets one token for concurrent calls from the app's function and never exchanges a key itself", async () => {
    const app = backend();
    const client = createClient({ baseUrl: fake.url, getAccessToken: app.getAccessToken });
    await Promise.all(Array.from({ length: 5 }, () => client.get(STATS)));
    expect(app.minted).toEqual(["at-1"]);
    // The only grant is the backend's; the client sent no POST /auth of its own.
    expect(fake.grants).toHaveLength(1);
    expect(fake.calls.map((call) => call.token)).toEqual(["at-1", "at-1", "at-1", "at-1", "at-1"]);
    await expect(client.accessToken()).resolves.toBe("at-1");
  });

  it("calls the function again after 401 INVALID_TOKEN, once per request", async () => {
    const app = backend("string");
    const client = createClient({ baseUrl: fake.url, getAccessToken: app.getAccessToken });
    await client.get(STATS);
    fake.revokeTokens();
    await expect(client.get(STATS)).resolves.toEqual({ ok: true });
    expect(app.minted).toEqual(["at-1", "at-2"]);
    expect(fake.refused.map((request) => request.token)).toEqual(["at-1"]);

    fake.refuseTokens = true;
    const error = await client.get(STATS).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({ status: 401, code: "INVALID_TOKEN" });
    // One more token for the one retry, not a loop.
    expect(app.minted).toEqual(["at-1", "at-2", "at-3"]);
  });

  it("never uses a token at or past the expiry it was told", async () => {
    fake.ttlSeconds = 1;
    const app = backend();
    const client = createClient({ baseUrl: fake.url, getAccessToken: app.getAccessToken });
    await client.get(STATS);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await client.get(STATS);
    expect(app.minted).toEqual(["at-1", "at-2"]);
    expect(fake.refused).toEqual([]);
  });

  it("refuses getAccessToken together with apiKey, and surfaces the function's failure", async () => {
    const getAccessToken = async () => "t";
    expect(() => createClient({ baseUrl: fake.url, apiKey: KEY, getAccessToken })).toThrow(/not both/);
    const failing = createClient({
      baseUrl: fake.url,
      getAccessToken: async () => {
        throw new Error("backend down");
      },
    });
    await expect(failing.get(STATS)).rejects.toThrow("backend down");
    const empty = createClient({ baseUrl: fake.url, getAccessToken: async () => ({ accessToken: "" }) });
    await expect(empty.get(STATS)).rejects.toThrow(/non-empty access token/);
  });
});

describe("createAppTokenSource", () => {
  it("renews before expiresAt (30 s or a tenth of the lifetime) and keeps a string token until invalidated", async () => {
    let clock = 1_000_000;
    let calls = 0;
    const source = createAppTokenSource({
      now: () => clock,
      getAccessToken: async () => {
        calls += 1;
        return { accessToken: `t${calls}`, expiresAt: new Date(clock + 100_000) };
      },
    });
    await expect(source.get()).resolves.toBe("t1");
    clock += 89_000;
    await expect(source.get()).resolves.toBe("t1");
    clock += 2_000; // 91 s of 100: inside the last tenth
    await expect(source.get()).resolves.toBe("t2");
    source.invalidate("t1"); // not the current one: nothing happens
    await expect(source.get()).resolves.toBe("t2");
    source.invalidate("t2");
    await expect(source.get()).resolves.toBe("t3");

    const forever = createAppTokenSource({ now: () => clock, getAccessToken: async () => "s" });
    clock += 10 * 365 * 86_400_000;
    await expect(forever.get()).resolves.toBe("s");
  });

  it("refuses a token that has already expired", async () => {
    const source = createAppTokenSource({ getAccessToken: async () => ({ accessToken: "old", expiresAt: 1 }) });
    await expect(source.get()).rejects.toThrow(/already expired/);
  });
});
