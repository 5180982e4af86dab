import { execFileSync } from "node:child_process";
import { authCli, freePorts, type RunningStack, silentProgress, startStack, testRuntime } from "@platform/local-stack";
import { tempDir, waitFor } from "@platform/testing";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  parseEther,
} from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnswerRecorder, answerRecorder } from "./support/answerConformance.js";
import { RELAXED_BLOCK_TIME_MS } from "./support/blockTime.js";
import { compileConsumer, installedClient, runConsumer, tarballFiles } from "./support/clientPackage.js";
import { fullSettlerAbi } from "./support/intentsActors.js";

/*
 * Every operation of `/openapi.json`, answered by a whole local stack, with each status it can be
 * brought to give here (success, 304, the problems of a bad input, of a missing or refused token,
 * of a spent budget, of something that does not exist): each answer is held against the document
 * (support/answerConformance.ts), and schemathesis's response checks run over the document too.
 */

const state = tempDir("response-conformance");
let stack: RunningStack;
let base: string;
let recorder: AnswerRecorder;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function createKey(scopes: string, tier: string): Promise<{ id: string; secret: string }> {
  const auth = stack.descriptor.processes.find((entry) => entry.name === "auth")!;
  return JSON.parse(
    await authCli(
      testRuntime(),
      ["keys", "create", "--name", `conformance-${tier}`, "--scopes", scopes, "--tier", tier, "--json"],
      { AUTH_ADMIN_GRPC_TARGET: auth.adminGrpcTarget! },
    ),
  ) as { id: string; secret: string };
}

const send = (path: string, init: RequestInit = {}) => recorder.fetch(`${base}${path}`, init);
const authorized = (token: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
});
const postJson = (path: string, body: unknown, token?: string) =>
  send(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

async function exchange(key: { id: string; secret: string }): Promise<Json> {
  const answer = await postJson("/auth", { type: "API_KEY", username: key.id, password: key.secret });
  expect(answer.status).toBe(200);
  return (await answer.json()) as Json;
}

let token: string;

/** A fresh wallet accepts the current T&C: nonce, the SIWE message built from its fields, signed. */
async function acceptTerms(user: PrivateKeyAccount): Promise<number> {
  const fields = (await (
    await postJson("/intents/v1/tc/nonce", { walletAddress: user.address }, token)
  ).json()) as Json;
  const issuedAt = new Date();
  const message = createSiweMessage({
    address: user.address,
    domain: fields.domain,
    uri: fields.uri,
    version: "1",
    chainId: fields.chainIds[0],
    nonce: fields.nonce,
    statement: fields.statement,
    issuedAt,
    expirationTime: new Date(issuedAt.getTime() + 5 * 60_000),
    resources: [fields.resource],
  });
  const signature = await user.signMessage({ message });
  return (await postJson("/intents/v1/tc/accept", { message, signature }, token)).status;
}

/** A transaction of the user's own on the origin chain (a notification names the sender's). */
async function sendOwnTransaction(user: PrivateKeyAccount, rpcUrl: string, chainId: number): Promise<Hex> {
  const chain = defineChain({
    id: chainId,
    name: "origin",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  await createTestClient({ chain, transport: http(rpcUrl), mode: "anvil" }).setBalance({
    address: user.address,
    value: parseEther("1"),
  });
  return createWalletClient({ chain, transport: http(rpcUrl), account: user }).sendTransaction({
    to: user.address,
    value: 0n,
  });
}

/** The id of an order opened on the origin chain (the simulator's users open them). */
async function openedOrder(rpcUrl: string, fullSettler: Address): Promise<Hex> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  return waitFor(
    async () => {
      const logs = await client.getContractEvents({
        address: fullSettler,
        abi: fullSettlerAbi,
        eventName: "Open",
        fromBlock: 0n,
        strict: true,
      });
      return logs[0]?.args.orderId;
    },
    { what: "an order opened on the origin chain", timeoutMs: 90_000, intervalMs: 1_000 },
  );
}

beforeAll(async () => {
  stack = await startStack({
    stateDir: state.path,
    ports: await freePorts(),
    detached: false,
    runtime: testRuntime(),
    progress: silentProgress,
    // The Data API's network read models come from the native network.
    nativeNetwork: true,
    nativeBlockTimeMs: RELAXED_BLOCK_TIME_MS,
  });
  base = stack.descriptor.gatewayUrl;
  recorder = await answerRecorder(base);
  token = (await exchange(await createKey("data:read,intents:read,intents:write", "unlimited"))).access_token;
  // The projections caught up: the Data API answers 200 from here on.
  await waitFor(
    async () =>
      (await fetch(`${base}/data/v1/subnet-emissions/latest`, authorized(token))).status === 200 &&
      (await fetch(`${base}/data/v1/network/stats/latest`, authorized(token))).status === 200,
    { what: "the Data API's read models built", timeoutMs: 240_000, intervalMs: 1_000 },
  );
}, 420_000);

afterAll(async () => {
  await stack?.stop();
  state.remove();
}, 120_000);

describe("every answer the gateway gives is the one its OpenAPI document describes", () => {
  it("POST /auth: tokens for a key and for a refresh token; 400, 401", async () => {
    const key = await createKey("data:read", "standard");
    const issued = await exchange(key);
    const refreshed = await postJson("/auth", {
      type: "REFRESH_TOKEN",
      username: key.id,
      refresh_token: issued.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    expect((await postJson("/auth", { type: "API_KEY", username: key.id })).status).toBe(400);
    expect((await postJson("/auth", { type: "API_KEY", username: key.id, password: "sk_wrong" })).status).toBe(401);
  });

  it("the access guard: 401 without or with a bad token, 403 without the scope, 429 once the budget is spent", async () => {
    expect((await send("/data/v1/coin/price/latest")).status).toBe(401);
    expect((await send("/data/v1/coin/price/latest", authorized("not-a-token"))).status).toBe(401);
    const dataOnly = (await exchange(await createKey("data:read", "standard"))).access_token;
    const refused = await send(
      "/intents/v1/intents/pending?userAddress=0x52908400098527886E0F7030069857D2E4169EE7",
      authorized(dataOnly),
    );
    expect(refused.status).toBe(403);
    // Extension members are camelCase, as the T&C problem's acceptedVersion is (issue 44).
    expect(await refused.json()).toMatchObject({ code: "FORBIDDEN", requiredScope: "intents:read" });
    const free = (await exchange(await createKey("data:read", "free"))).access_token;
    let limited: Json | undefined;
    for (let attempt = 0; attempt < 30 && limited === undefined; attempt++) {
      const answer = await send("/data/v1/coin/price/latest", authorized(free));
      if (answer.status === 429) limited = (await answer.json()) as Json;
    }
    expect(limited).toMatchObject({ code: "RATE_LIMITED", violatedPolicies: ["default"] });
    expect(limited!.retryAfterSeconds).toBeGreaterThanOrEqual(0);
    expect(limited).not.toHaveProperty("violated-policies");
  });

  it("the Data API: each route's 200 and 304, a refused parameter, an unknown subnet", async () => {
    const descriptor = stack.descriptor;
    const netuid = descriptor.substrate!.netuids[0]!;
    const account = descriptor.substrate!.demoAccounts.find((entry) => entry.role === "coldkey")!.ss58;
    const evm = descriptor.substrate!.demoAccounts.find((entry) => entry.role === "evm")!.evmH160!;
    const reads = [
      `/data/v1/accounts/${account}/balance/latest`,
      `/data/v1/accounts/${evm}/balance/latest`,
      `/data/v1/accounts/${account}/balance/history?interval=1h&limit=5`,
      `/data/v1/accounts/${account}/transactions?limit=1`,
      "/data/v1/coin/price/latest",
      "/data/v1/coin/price/history?interval=5m&limit=5",
      "/data/v1/network/stats/latest",
      "/data/v1/network/stats/history?interval=5m&limit=5",
      "/data/v1/subnet-pools/latest?limit=1",
      `/data/v1/subnet-pools/${netuid}/swap-estimate?direction=stake&amount=1000000000`,
      `/data/v1/subnet-pools/${netuid}/swap-estimate?direction=unstake&amount=1000000000`,
      `/data/v1/subnet-pools/history?netuid=${netuid}&interval=5m&limit=5`,
      "/data/v1/subnet-emissions/latest?limit=1",
      `/data/v1/subnet-emissions/history?netuid=${netuid}&interval=5m&limit=5`,
      "/data/v1/subnets/latest?limit=1",
      `/data/v1/subnets/history?netuid=${netuid}&interval=5m&limit=5`,
      `/data/v1/subnets/${netuid}/validators/latest?limit=1`,
      `/data/v1/subnets/${netuid}/holders/top?limit=1`,
      `/data/v1/subnets/${netuid}/holders/top?limit=1&coldkey=${account}`,
      `/data/v1/subnets/${netuid}/neurons/latest?limit=1`,
    ];
    const statuses: Record<string, number[]> = {};
    for (const path of reads) {
      // A new block may change the answer between the two requests: then the pair is asked again.
      for (let attempt = 0; attempt < 5 && statuses[path]?.[1] !== 304; attempt++) {
        const answer = await send(path, authorized(token));
        statuses[path] = [answer.status];
        if (answer.status !== 200) break;
        const body = (await answer.json()) as Json;
        const etag = answer.headers.get("etag")!;
        statuses[path].push((await send(path, authorized(token, { headers: { "if-none-match": etag } }))).status);
        // The next page a list links to, as a client following `next` gets it.
        if (body._links?.next) statuses[path].push((await send(body._links.next.href, authorized(token))).status);
      }
    }
    for (const path of reads) expect(statuses[path]!.slice(0, 2), path).toEqual([200, 304]);
    expect((await send("/data/v1/accounts/not-an-account/balance/latest", authorized(token))).status).toBe(400);
    expect((await send("/data/v1/coin/price/history?limit=0", authorized(token))).status).toBe(400);
    // A parameter no operation lists is refused, each one named (issue 44): `?limt=5` answered 200.
    const typo = await send(`/data/v1/accounts/${account}/transactions?limt=5&ofset=1`, authorized(token));
    expect(typo.status).toBe(400);
    expect(await typo.json()).toMatchObject({
      code: "UNKNOWN_PARAMETER",
      errors: [{ pointer: "/query/limt" }, { pointer: "/query/ofset" }],
    });
    expect((await send("/data/v1/subnets/65000/validators/latest", authorized(token))).status).toBe(404);
    expect([200, 404]).toContain((await send("/data/v1/subnet-pools/latest?netuid=65000", authorized(token))).status);
  }, 120_000);
});

describe("every answer of the Service API and the event streams is the one the document describes", () => {
  it("the Service API: T&C, quotes, preflight, notifications, lists, an order and an unknown one", async () => {
    const wallet = "0x52908400098527886E0F7030069857D2E4169EE7";
    expect((await postJson("/intents/v1/tc/nonce", { walletAddress: wallet }, token)).status).toBe(200);
    const user = privateKeyToAccount(generatePrivateKey());
    expect(await acceptTerms(user)).toBe(200);
    const origin = stack.descriptor.chains.find((chain) => chain.name === "origin")!;
    const ownTransaction = await sendOwnTransaction(user, origin.rpcUrl, origin.chainId);
    const notifiedOwn = await postJson(
      "/intents/v1/intents",
      { userAddress: user.address, originChainId: origin.chainId, txHash: ownTransaction },
      token,
    );
    expect(notifiedOwn.status).toBe(202);
    // An order the simulator's users opened, once mirrored.
    const opened = await openedOrder(origin.rpcUrl, origin.contracts.fullSettler as Address);
    await waitFor(async () => (await send(`/intents/v1/intents/${opened}`, authorized(token))).status === 200, {
      what: "an opened order mirrored",
      timeoutMs: 90_000,
      intervalMs: 1_000,
    });
    expect((await send(`/intents/v1/tc/status?walletAddress=${wallet}`, authorized(token))).status).toBe(200);
    expect((await send("/intents/v1/tc/status?walletAddress=0x1234", authorized(token))).status).toBe(400);
    expect((await postJson("/intents/v1/tc/accept", { message: "hello", signature: "0x00" }, token)).status).toBe(400);

    const destination = stack.descriptor.chains.find((chain) => chain.name === "destination")!;
    const quoted = await postJson(
      "/intents/v1/quotes",
      {
        originChainId: origin.chainId,
        destinationChainId: destination.chainId,
        inputToken: origin.tokens.USDC,
        outputToken: destination.tokens.USDC,
        amount: "100000000",
        userAddress: wallet,
      },
      token,
    );
    expect(quoted.status).toBe(200);
    const quote = (await quoted.json()) as Json;
    expect(
      (await postJson("/intents/v1/preflight", { userAddress: wallet, quoteId: quote.quoteId }, token)).status,
    ).toBe(200);
    const incomplete = await postJson("/intents/v1/quotes", { originChainId: origin.chainId }, token);
    expect(incomplete.status).toBe(400);
    // Every missing field at once, not the first only (issue 44).
    const listed = (await incomplete.json()) as Json;
    expect(listed).toMatchObject({ code: "INVALID_REQUEST", parameter: "destinationChainId" });
    expect(listed.errors.map((error: Json) => error.pointer)).toEqual([
      "/destinationChainId",
      "/inputToken",
      "/outputToken",
      "/amount",
    ]);
    const txHash = `0x${"ab".repeat(32)}`;
    const notified = await postJson(
      "/intents/v1/intents",
      { userAddress: wallet, originChainId: origin.chainId, txHash },
      token,
    );
    expect([202, 403, 404]).toContain(notified.status);
    expect(
      (await send(`/intents/v1/intents?originChainId=${origin.chainId}&txHash=${txHash}`, authorized(token))).status,
    ).toBe(200);
    for (const list of ["pending", "expired"])
      expect((await send(`/intents/v1/intents/${list}?userAddress=${wallet}&limit=5`, authorized(token))).status).toBe(
        200,
      );
    expect((await send(`/intents/v1/intents/0x${"cd".repeat(32)}`, authorized(token))).status).toBe(404);
  }, 240_000);

  it("the event streams: their headers, and a refused filter", async () => {
    for (const path of [
      "/intents/v1/events?userAddress=0x52908400098527886E0F7030069857D2E4169EE7",
      "/data/v1/events?topics=heads",
    ]) {
      const controller = new AbortController();
      const answer = await send(path, authorized(token, { signal: controller.signal }));
      expect(answer.status, path).toBe(200);
      controller.abort();
    }
    expect((await send("/intents/v1/events", authorized(token))).status).toBe(400);
    // No cache-buster exemption on a stream either.
    for (const path of ["/data/v1/events?topics=heads&_=1", "/intents/v1/events?orderId=0x00&nocache=1"])
      expect(await (await send(path, authorized(token))).json(), path).toMatchObject({ code: "UNKNOWN_PARAMETER" });
    expect((await postJson("/auth?debug=1", { type: "API_KEY", username: "x", password: "y" })).status).toBe(400);
  });
});

describe("the answers against the document", () => {
  it("no answer strays from the document, and every operation was answered with success", async () => {
    expect(recorder.violations()).toEqual([]);
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, object> };
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    const succeeded = new Set(
      recorder
        .checked()
        .filter((answer) => answer.status < 300)
        .map((answer) => answer.operation),
    );
    expect(operations.filter((operation) => !succeeded.has(operation))).toEqual([]);
  });
});

describe("the client package, packed and installed outside the workspace", () => {
  it("installs with npm into an empty project, compiles in strict mode, and reads the stack", async () => {
    const key = await createKey("data:read", "standard");
    const account = stack.descriptor.substrate!.demoAccounts.find((entry) => entry.role === "coldkey")!.ss58;
    const client = await installedClient();
    const { tarball } = client;
    const files = tarballFiles(tarball);
    // Every export's target ships: none points at a file the pack leaves out.
    const manifest = JSON.parse(
      execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" }),
    ) as { exports: Record<string, string | Record<string, string>>; dependencies: Record<string, string> };
    const targets = Object.values(manifest.exports).flatMap((target) =>
      typeof target === "string" ? [target] : Object.values(target),
    );
    expect(targets.filter((target) => !files.includes(target.replace(/^\.\//, "")))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(["README.md", "CHANGELOG.md", "openapi.json", "dist/index.d.ts"]));
    expect(Object.values(manifest.dependencies).every((range) => range.startsWith("^"))).toBe(true);

    const project = compileConsumer(
      client,
      `import { createClient, isProblem } from "@chain-intents/client";

const client = createClient({
  baseUrl: ${JSON.stringify(base)},
  apiKey: { id: ${JSON.stringify(key.id)}, secret: ${JSON.stringify(key.secret)} },
});
const balance = await client.get("/data/v1/accounts/{address}/balance/latest", {
  params: { path: { address: ${JSON.stringify(account)} } },
});
const free: string = balance.balance_free_rao;
const subnets: number[] = [];
for await (const subnet of client.paginate("/data/v1/subnets/latest", { params: { query: { limit: 2 } } }))
  subnets.push(subnet.netuid);
let refused = "";
try {
  await client.get("/data/v1/subnets/{netuid}/validators/latest", { params: { path: { netuid: 65000 } } });
} catch (error) {
  if (isProblem(error)) refused = error.code;
}
console.log(JSON.stringify({ free, kind: balance.address?.kind, subnets: subnets.length, refused }));
`,
    );
    const printed = JSON.parse(await runConsumer(project)) as {
      free: string;
      kind: string;
      subnets: number;
      refused: string;
    };
    expect(printed).toMatchObject({ kind: "substrate", refused: "NETUID_NOT_FOUND" });
    expect(printed.free).toMatch(/^\d+$/);
    expect(printed.subnets).toBeGreaterThan(0);
  }, 300_000);
});
