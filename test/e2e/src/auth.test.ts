import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  authCli,
  freePorts,
  type PortPlan,
  type RunningStack,
  redisAdminUrl,
  repoRoot,
  serviceCommand,
  serviceProcessSpecs,
  silentProgress,
  startStack,
  testRuntime,
} from "@platform/local-stack";
import { createRedis } from "@platform/store";
import { type ManagedProcess, spawnManaged, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { termsAndConditionsSuite } from "./support/termsAndConditionsSuite.js";

// API.md's `POST /auth` and `Protected routes`, row by row, through the real gateway and the real
// auth service, with Kafka, Redis and NATS behind them.
const state = tempDir("e2e-auth");
let stack: RunningStack;
let base: string;
let ports: PortPlan;
let restartedAuth: ManagedProcess | undefined;
const secretsSeen = new Set<string>();
const logFiles: string[] = [];

interface Key {
  id: string;
  secret: string;
}

async function createKey(scopes: string, tier = "standard"): Promise<Key> {
  const auth = stack.descriptor.processes.find((entry) => entry.name === "auth")!;
  const key = JSON.parse(
    await authCli(
      testRuntime(),
      ["keys", "create", "--name", `e2e-${scopes}`, "--scopes", scopes, "--tier", tier, "--json"],
      { AUTH_ADMIN_GRPC_TARGET: auth.adminGrpcTarget! },
    ),
  ) as Key;
  secretsSeen.add(key.secret);
  return key;
}

async function adminCli(args: string[]): Promise<string> {
  const auth = stack.descriptor.processes.find((entry) => entry.name === "auth")!;
  return authCli(testRuntime(), args, { AUTH_ADMIN_GRPC_TARGET: auth.adminGrpcTarget! });
}

function postAuth(body: unknown, init: { contentType?: string; raw?: string } = {}) {
  return fetch(`${base}/auth`, {
    method: "POST",
    headers: { "content-type": init.contentType ?? "application/json" },
    body: init.raw ?? JSON.stringify(body),
  });
}

async function tokensFor(key: Key): Promise<{ access_token: string; refresh_token: string }> {
  const response = await postAuth({ type: "API_KEY", username: key.id, password: key.secret });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { access_token: string; refresh_token: string };
  secretsSeen.add(body.access_token);
  secretsSeen.add(body.refresh_token);
  return body;
}

const wallet = "0x52908400098527886e0f7030069857d2e4169ee7";
const protectedUrl = () => `${base}/intents/v1/tc/status?walletAddress=${wallet}`;
const callProtected = (token?: string) =>
  fetch(protectedUrl(), token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });

async function problemOf(response: Response) {
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  return (await response.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  ports = await freePorts();
  // No simulator: nothing here reads chain data, and its load would only slow the suite.
  stack = await startStack({
    stateDir: state.path,
    ports,
    detached: false,
    runtime: testRuntime(),
    progress: silentProgress,
    logLevel: "debug",
    simulator: false,
  });
  base = stack.descriptor.gatewayUrl;
  secretsSeen.add(stack.descriptor.demoApiKey!.secret);
}, 240_000);

afterAll(async () => {
  await restartedAuth?.stop();
  await stack?.stop();
  state.remove();
}, 120_000);

describe("POST /auth", () => {
  it("API_KEY mode answers tokens with the documented field types and headers", async () => {
    const key = await createKey("data:read,intents:read");
    const response = await postAuth({ type: "API_KEY", username: key.id, password: key.secret });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as Record<string, unknown>;
    secretsSeen.add(String(body.access_token));
    secretsSeen.add(String(body.refresh_token));
    expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "refresh_token", "token_type"]);
    expect(body.token_type).toBe("Bearer");
    expect(body.expires_in).toBe("900");
    expect(typeof body.access_token).toBe("string");
    expect(body.refresh_token).toMatch(/^rt_/);
  });

  it("REFRESH_TOKEN mode answers a new access token and no refresh_token field", async () => {
    const key = await createKey("intents:read");
    const { refresh_token } = await tokensFor(key);
    const response = await postAuth({ type: "REFRESH_TOKEN", username: key.id, refresh_token });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    secretsSeen.add(String(body.access_token));
    expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "token_type"]);
    expect(body.expires_in).toMatch(/^\d+$/);
    expect((await callProtected(String(body.access_token))).status).toBe(200);
  });

  it.each<[string, () => Promise<Response>, string]>([
    ["a body that is not JSON", () => postAuth(undefined, { raw: "{type: API_KEY" }), "INVALID_REQUEST"],
    [
      "a content type other than JSON",
      () =>
        postAuth(undefined, {
          contentType: "application/x-www-form-urlencoded",
          raw: "type=API_KEY&username=a&password=b",
        }),
      "INVALID_REQUEST",
    ],
    ["a missing type", () => postAuth({ username: "ak_x", password: "p" }), "INVALID_REQUEST"],
    ["a missing username", () => postAuth({ type: "API_KEY", password: "p" }), "INVALID_REQUEST"],
    ["a missing password in API_KEY mode", () => postAuth({ type: "API_KEY", username: "ak_x" }), "INVALID_REQUEST"],
    [
      "a missing refresh_token in REFRESH_TOKEN mode",
      () => postAuth({ type: "REFRESH_TOKEN", username: "ak_x" }),
      "INVALID_REQUEST",
    ],
    ["a mistyped field", () => postAuth({ type: "API_KEY", username: 42, password: "p" }), "INVALID_REQUEST"],
    [
      "an unknown type",
      () => postAuth({ type: "PASSWORD", username: "ak_x", password: "p" }),
      "UNSUPPORTED_GRANT_TYPE",
    ],
  ])("answers 400 for %s", async (_case, send, code) => {
    const response = await send();
    expect(response.status).toBe(400);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await problemOf(response)).toMatchObject({ status: 400, code });
  });

  it("answers unknown key id and wrong secret identically with 401 and a challenge", async () => {
    const key = await createKey("data:read");
    const unknown = await postAuth({ type: "API_KEY", username: "ak_0000000000000000000000", password: key.secret });
    const wrong = await postAuth({ type: "API_KEY", username: key.id, password: "sk_wrong" });
    for (const response of [unknown, wrong]) {
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBeTruthy();
      expect(response.headers.get("cache-control")).toBe("no-store");
    }
    const [a, b] = [await problemOf(unknown), await problemOf(wrong)];
    expect(a).toEqual({ ...b, instance: a.instance });
    expect(a.code).toBe("INVALID_CREDENTIALS");
  });

  it("refuses a revoked key, an unknown refresh token, and one used with another key id", async () => {
    const [first, second] = [await createKey("data:read"), await createKey("data:read")];
    const { refresh_token } = await tokensFor(first);
    const crossed = await postAuth({ type: "REFRESH_TOKEN", username: second.id, refresh_token });
    expect(crossed.status).toBe(401);
    expect((await problemOf(crossed)).code).toBe("INVALID_REFRESH_TOKEN");
    const unknown = await postAuth({ type: "REFRESH_TOKEN", username: first.id, refresh_token: "rt_unknown" });
    expect((await problemOf(unknown)).code).toBe("INVALID_REFRESH_TOKEN");

    await adminCli(["keys", "revoke", second.id]);
    const revoked = await postAuth({ type: "API_KEY", username: second.id, password: second.secret });
    expect(revoked.status).toBe(401);
    expect((await problemOf(revoked)).code).toBe("INVALID_CREDENTIALS");
  });

  it("answers 404 for other paths under /auth and 405 with Allow for other methods", async () => {
    for (const path of ["/auth/token", "/auth/anything/else"]) {
      const response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(response.status).toBe(404);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect((await problemOf(response)).code).toBe("NOT_FOUND");
    }
    const get = await fetch(`${base}/auth`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });

  it("never answers 403 or 429, even under a burst of bad attempts, and a correct secret still gets its token", async () => {
    const key = await createKey("data:read");
    const statuses = await Promise.all(
      Array.from({ length: 40 }, () =>
        postAuth({ type: "API_KEY", username: key.id, password: "sk_wrong" }).then((response) => response.status),
      ),
    );
    expect(new Set(statuses)).toEqual(new Set([401]));
    // Only failures are held back (issue 42, item 2): the right secret from the same address is
    // answered, so a stranger's failures behind one NAT never lock the key's owner out. An address
    // past its failure budget (AUTH_LOCKOUT_ADDRESS_BUDGET, 5,000) is refused at once:
    // services/auth/src/issue/failureBudget.int.test.ts.
    const correct = await postAuth({ type: "API_KEY", username: key.id, password: key.secret });
    expect(correct.status).toBe(200);
  }, 120_000);
});

describe("protected routes", () => {
  it("answers 401 UNAUTHENTICATED without a token, with the Bearer challenge", async () => {
    const response = await callProtected();
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="api"');
    expect((await problemOf(response)).code).toBe("UNAUTHENTICATED");
  });

  it("answers 401 INVALID_TOKEN for a malformed or tampered token", async () => {
    const key = await createKey("intents:read");
    const { access_token } = await tokensFor(key);
    const [header, payload, signature] = access_token.split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>;
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, scope: "intents:read intents:write data:read" })).toString("base64url")}.${signature}`;
    for (const token of ["garbage", tampered]) {
      const response = await callProtected(token);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="api", error="invalid_token"/);
      expect((await problemOf(response)).code).toBe("INVALID_TOKEN");
    }
  });

  it("refuses a token of a key revoked 5 seconds ago", async () => {
    const key = await createKey("intents:read");
    const { access_token } = await tokensFor(key);
    expect((await callProtected(access_token)).status).toBe(200);
    await adminCli(["keys", "revoke", key.id]);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const response = await callProtected(access_token);
    expect(response.status).toBe(401);
    expect((await problemOf(response)).code).toBe("INVALID_TOKEN");
  }, 30_000);

  it("answers 403 for a key without the route's scope", async () => {
    const key = await createKey("data:read");
    const response = await callProtected((await tokensFor(key)).access_token);
    expect(response.status).toBe(403);
    expect((await problemOf(response)).code).toBe("FORBIDDEN");
  });

  it("carries RateLimit headers, answers 429 with Retry-After once the budget is spent, and admits again after it", async () => {
    const key = await createKey("intents:read", "free");
    const { access_token } = await tokensFor(key);
    let limited: Response | undefined;
    for (let attempt = 0; attempt < 40 && !limited; attempt += 1) {
      const response = await callProtected(access_token);
      expect(response.headers.get("ratelimit-policy")).toMatch(/^"default";q=\d+;w=\d+$/);
      expect(response.headers.get("ratelimit")).toMatch(/^"default";r=\d+;t=\d+$/);
      if (response.status === 429) limited = response;
      else expect(response.status).toBe(200);
    }
    expect(limited).toBeDefined();
    const retryAfter = Number(limited!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect((await problemOf(limited!)).code).toBe("RATE_LIMITED");
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    expect((await callProtected(access_token)).status).toBe(200);
  }, 60_000);
});

// Before the durability tests, which restart auth and flush Redis.
termsAndConditionsSuite(() => ({ stack, ports, stateDir: state.path }));

describe("durability and secrecy", () => {
  it("keys and refresh tokens survive a restart of auth and the loss of Redis", async () => {
    const key = await createKey("intents:read");
    const { refresh_token } = await tokensFor(key);

    // Restart auth: a fresh process with the same configuration.
    await stack.processes.get("auth")!.stop();
    const infra = {
      ...stack.descriptor.infrastructure,
      chainsFile: join(state.path, "chains.json"),
      secretsDir: join(state.path, "secrets"),
    };
    const spec = serviceProcessSpecs(ports, infra, "debug").find((candidate) => candidate.name === "auth")!;
    const { command, args } = serviceCommand(repoRoot, "auth", testRuntime());
    const logFile = join(state.path, "logs", "auth-restarted.log");
    restartedAuth = spawnManaged({
      name: "auth",
      command,
      args,
      cwd: repoRoot,
      logFile,
      env: { PATH: process.env.PATH, ...spec.env },
    });
    logFiles.push(logFile);
    await waitFor(async () => (await fetch(spec.readyUrl).catch(() => undefined))?.status === 200, {
      what: "auth ready again",
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    await waitFor(
      async () => (await postAuth({ type: "API_KEY", username: key.id, password: key.secret })).status === 200,
      {
        what: "the key after the restart",
        timeoutMs: 20_000,
        intervalMs: 500,
      },
    );
    expect((await postAuth({ type: "REFRESH_TOKEN", username: key.id, refresh_token })).status).toBe(200);

    // Lose Redis' data: the registry comes back from Kafka.
    const redis = createRedis({ url: redisAdminUrl(stack.descriptor), connectionName: "e2e-flush" });
    await waitFor(async () => (await redis.ping()) === "PONG", { what: "redis" });
    await redis.flushall();
    redis.disconnect();
    await waitFor(
      async () => (await postAuth({ type: "API_KEY", username: key.id, password: key.secret })).status === 200,
      {
        what: "the key back from Kafka",
        timeoutMs: 20_000,
        intervalMs: 500,
      },
    );
    const refreshed = await postAuth({ type: "REFRESH_TOKEN", username: key.id, refresh_token });
    expect(refreshed.status).toBe(200);
    secretsSeen.add(String(((await refreshed.json()) as { access_token: string }).access_token));
  }, 60_000);

  it("no secret, token or refresh token appears in any log line", () => {
    const logs = [...stack.descriptor.processes.map((entry) => entry.logFile), ...logFiles]
      .map((file) => readFileSync(file, "utf8"))
      .join("\n");
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of secretsSeen) {
      expect(logs.includes(secret), `a credential starting ${secret.slice(0, 6)} was logged`).toBe(false);
    }
    const pepper = readFileSync(join(state.path, "secrets", "auth-pepper", "pepper"), "utf8");
    expect(logs.includes(pepper)).toBe(false);
  });
});
