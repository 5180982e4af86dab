import { execFileSync } from "node:child_process";
import {
  authCli,
  freePorts,
  type RunningStack,
  redisAdminUrl,
  silentProgress,
  startStack,
  testRuntime,
} from "@platform/local-stack";
import { intentsKeys } from "@platform/read-models";
import { tempDir } from "@platform/testing";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  erc20Abi,
  type Hex,
  http,
  maxUint256,
  parseAbi,
  parseEther,
  parseEventLogs,
  parseUnits,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Quote → preflight → open through the public gateway against the local stack's devnet, then the
// status routes: their shapes, codes and route order (pending/expired are not order ids).
const state = tempDir("e2e-intents-quotes");
let stack: RunningStack;
let base: string;
let token: string;
let dataOnlyToken: string;
let usdc: Address;
let destinationUsdc: Address;
let settler: Address;
let rpcUrl: string;
const user = privateKeyToAccount(generatePrivateKey());

const tokenAbi = parseAbi(["function minter() view returns (address)", "function mint(address to, uint256 amount)"]);
const openAbi = parseAbi([
  "struct OnchainCrossChainOrder { uint32 fillDeadline; bytes32 orderDataType; bytes orderData; }",
  "function open(OnchainCrossChainOrder order) payable",
  "event Open(bytes32 indexed orderId, (address user, uint256 originChainId, uint32 openDeadline, uint32 fillDeadline, bytes32 orderId, (bytes32 token, uint256 amount, bytes32 recipient, uint256 chainId)[] maxSpent, (bytes32 token, uint256 amount, bytes32 recipient, uint256 chainId)[] minReceived, (uint256 destinationChainId, bytes32 destinationSettler, bytes originData)[] fillInstructions) resolvedOrder)",
]);

const headers = (bearer = token) => ({ "content-type": "application/json", authorization: `Bearer ${bearer}` });
const post = (path: string, body: unknown, bearer?: string) =>
  fetch(`${base}${path}`, { method: "POST", headers: headers(bearer), body: JSON.stringify(body) });
const get = (path: string) => fetch(`${base}${path}`, { headers: headers() });
const json = async (response: Response) => (await response.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function issueToken(name: string, scopes: string): Promise<string> {
  const auth = stack.descriptor.processes.find((entry) => entry.name === "auth")!;
  const key = JSON.parse(
    await authCli(
      testRuntime(),
      ["keys", "create", "--name", name, "--scopes", scopes, "--tier", "unlimited", "--json"],
      { AUTH_ADMIN_GRPC_TARGET: auth.adminGrpcTarget! },
    ),
  ) as { id: string; secret: string };
  const issued = await fetch(`${base}/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
  });
  return ((await issued.json()) as { access_token: string }).access_token;
}

beforeAll(async () => {
  // The mirror's writers (chain-ingestor, projector) are not needed here: the reads are checked on
  // what an empty mirror answers, so this test does not wait on them.
  stack = await startStack({
    stateDir: state.path,
    ports: await freePorts(),
    detached: false,
    runtime: testRuntime(),
    progress: silentProgress,
    services: ["auth", "tc", "data-query", "intents-gateway", "gateway"],
  });
  base = stack.descriptor.gatewayUrl;
  // No projector runs here: the intents mirror is empty, and its marker says so complete (as a
  // caught-up projector's would), so reads answer what an empty mirror holds, not REBUILDING.
  execFileSync("redis-cli", ["-u", redisAdminUrl(stack.descriptor), "SET", intentsKeys.marker, "complete"]);
  token = await issueToken("e2e-intents", "intents:read,intents:write");
  dataOnlyToken = await issueToken("e2e-intents-data", "data:read");

  const origin = stack.descriptor.chains.find((chain) => chain.chainId === 31337)!;
  const destination = stack.descriptor.chains.find((chain) => chain.chainId === 31338)!;
  usdc = origin.tokens["USDC"] as Address;
  destinationUsdc = destination.tokens["USDC"] as Address;
  settler = origin.contracts["fullSettler"] as Address;
  rpcUrl = origin.rpcUrl;

  // Fund a fresh user: gas, then USDC minted by the token's minter (impersonated: the deployer's key
  // stays inside the launcher), then the approval a real user gives the settler.
  const chain = defineChain({
    id: 31337,
    name: "origin",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 100 });
  const testClient = createTestClient({ chain, transport: http(rpcUrl), mode: "anvil" });
  await testClient.setBalance({ address: user.address, value: parseEther("10") });
  const minter = await publicClient.readContract({ address: usdc, abi: tokenAbi, functionName: "minter" });
  await testClient.impersonateAccount({ address: minter });
  const minted = await createWalletClient({ chain, transport: http(rpcUrl), account: minter }).writeContract({
    address: usdc,
    abi: tokenAbi,
    functionName: "mint",
    args: [user.address, parseUnits("1000", 6)],
  });
  await publicClient.waitForTransactionReceipt({ hash: minted });
  await testClient.stopImpersonatingAccount({ address: minter });
  const approved = await createWalletClient({ chain, transport: http(rpcUrl), account: user }).writeContract({
    address: usdc,
    abi: erc20Abi,
    functionName: "approve",
    args: [settler, maxUint256],
  });
  await publicClient.waitForTransactionReceipt({ hash: approved });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  state.remove();
}, 120_000);

const quoteBody = (overrides: Record<string, unknown> = {}) => ({
  originChainId: 31337,
  destinationChainId: 31338,
  inputToken: usdc,
  outputToken: destinationUsdc,
  amount: "100000000",
  userAddress: user.address.toLowerCase(),
  ...overrides,
});

describe("quotes and preflight through the gateway: a quoted order that opens", () => {
  it("quotes, passes every preflight check, and the order opens with the preflight's orderId", async () => {
    const quoted = await post("/intents/v1/quotes", quoteBody());
    expect(quoted.status).toBe(200);
    const quote = await json(quoted);
    expect(quote).toMatchObject({
      quoteId: expect.stringMatching(/^q_/),
      originChainId: 31337,
      destinationChainId: 31338,
      inputAmount: "100000000",
      outputAmount: "99850000",
      fees: {
        total: { amount: "150000", bps: 15 },
        breakdown: [
          { type: "filler", amount: "50000" },
          { type: "gas", amount: "100000" },
        ],
      },
      limits: { minInputAmount: "1000000", maxInputAmount: "100000000000" },
      estimatedFillTimeSeconds: 10,
      settlement: {
        fullSettler: settler,
        approvalSpender: settler,
        order: { recipient: user.address, originChainId: 31337 },
      },
      _links: { preflight: { href: "/intents/v1/preflight" } },
    });
    expect(Number.isInteger(quote.fillDeadline)).toBe(true);
    expect(quote.settlement.orderData).toMatch(/^0x[0-9a-f]{448}$/);

    const checked = await post("/intents/v1/preflight", { userAddress: user.address, quoteId: quote.quoteId });
    expect(checked.status).toBe(200);
    const preflight = await json(checked);
    expect(preflight.ok).toBe(true);
    expect(preflight.checks.map((check: { name: string; status: string }) => `${check.name}:${check.status}`)).toEqual([
      "ROUTE_SUPPORTED:pass",
      "AMOUNT_WITHIN_LIMITS:pass",
      "FEE_COVERED:pass",
      "QUOTE_NOT_EXPIRED:pass",
      "QUOTE_MATCHES:pass",
      "FILL_DEADLINE_BOUNDS:pass",
      "BALANCE:pass",
      "ALLOWANCE:pass",
      "NATIVE_GAS:pass",
      "SIMULATION:pass",
    ]);
    expect(preflight.orderId).toMatch(/^0x[0-9a-f]{64}$/);
    expect(preflight._links.intent.href).toBe(`/intents/v1/intents/${preflight.orderId}`);
    expect(preflight.asOf.map((asOf: { chainId: number }) => asOf.chainId)).toEqual([31337, 31338]);

    // The order exactly as the wallet sends it gives the same answer.
    const onchainOrder = {
      originChainId: 31337,
      fillDeadline: quote.fillDeadline,
      orderDataType: quote.settlement.orderDataType,
      orderData: quote.settlement.orderData,
    };
    const asOpened = await json(
      await post("/intents/v1/preflight", { userAddress: user.address, order: onchainOrder }),
    );
    expect(asOpened).toMatchObject({ ok: true, orderId: preflight.orderId });

    const chain = defineChain({
      id: 31337,
      name: "origin",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    });
    const hash = await createWalletClient({ chain, transport: http(rpcUrl), account: user }).writeContract({
      address: settler,
      abi: openAbi,
      functionName: "open",
      args: [
        {
          fillDeadline: quote.fillDeadline,
          orderDataType: quote.settlement.orderDataType as Hex,
          orderData: quote.settlement.orderData as Hex,
        },
      ],
    });
    const receipt = await createPublicClient({
      chain,
      transport: http(rpcUrl),
      pollingInterval: 100,
    }).waitForTransactionReceipt({ hash });
    const [opened] = parseEventLogs({ abi: openAbi, eventName: "Open", logs: receipt.logs });
    expect(opened!.args.orderId).toBe(preflight.orderId);

    // Now the nonce is used: the same order fails its simulation, by the settler's error name.
    const again = await json(await post("/intents/v1/preflight", { userAddress: user.address, order: onchainOrder }));
    expect(again.ok).toBe(false);
    expect(again.checks.find((check: { name: string }) => check.name === "SIMULATION")).toMatchObject({
      status: "fail",
      actual: "reverts with NonceUsed",
    });

    // Whatever the mirror knows by now, the transaction's route answers 200 with its state.
    const byTx = await get(`/intents/v1/intents?originChainId=31337&txHash=${hash.toUpperCase().replace("0X", "0x")}`);
    expect(byTx.status).toBe(200);
    expect(await json(byTx)).toMatchObject({
      originChainId: 31337,
      txHash: hash,
      _links: { self: { href: `/intents/v1/intents?originChainId=31337&txHash=${hash}` } },
    });
  }, 60_000);
});

describe("quotes and preflight through the gateway: failing checks, problem codes and the scope", () => {
  it("names failing checks: no allowance and no balance for a fresh wallet", async () => {
    const stranger = privateKeyToAccount(generatePrivateKey());
    const quote = await json(await post("/intents/v1/quotes", quoteBody({ userAddress: stranger.address })));
    const preflight = await json(
      await post("/intents/v1/preflight", { userAddress: stranger.address, quoteId: quote.quoteId }),
    );
    const byName = Object.fromEntries(
      preflight.checks.map((check: { name: string; status: string }) => [check.name, check.status]),
    );
    expect(byName).toMatchObject({
      ROUTE_SUPPORTED: "pass",
      BALANCE: "fail",
      ALLOWANCE: "fail",
      NATIVE_GAS: "warn",
      SIMULATION: "fail",
    });
    expect(preflight.ok).toBe(false);
  }, 30_000);

  it("answers problem codes for an unsupported route, an amount outside the limits and bad input", async () => {
    const unsupported = await post("/intents/v1/quotes", quoteBody({ destinationChainId: 31964 }));
    expect(unsupported.status).toBe(400);
    expect(await json(unsupported)).toMatchObject({ code: "UNSUPPORTED_ROUTE", title: "Unsupported route" });
    const tooSmall = await post("/intents/v1/quotes", quoteBody({ amount: "10" }));
    expect(tooSmall.status).toBe(400);
    expect(await json(tooSmall)).toMatchObject({
      code: "AMOUNT_OUTSIDE_LIMITS",
      minInputAmount: "1000000",
      maxInputAmount: "100000000000",
    });
    expect(await json(await post("/intents/v1/quotes", quoteBody({ inputToken: "0x1234" })))).toMatchObject({
      status: 400,
      code: "INVALID_ADDRESS",
    });
    expect(await json(await post("/intents/v1/preflight", { userAddress: user.address }))).toMatchObject({
      status: 400,
      code: "INVALID_REQUEST",
    });
    expect(
      await json(
        await post("/intents/v1/preflight", { userAddress: user.address, quoteId: "q_AAAAAAAAAAAAAAAAAAAAAA" }),
      ),
    ).toMatchObject({ status: 404, code: "QUOTE_NOT_FOUND" });
  }, 30_000);

  it("keeps a quote for the API key that asked for it: another key's preflight reads its quoteId as unknown", async () => {
    const quote = await json(await post("/intents/v1/quotes", quoteBody({ userAddress: user.address })));
    const ownPreflight = await post("/intents/v1/preflight", { userAddress: user.address, quoteId: quote.quoteId });
    expect(ownPreflight.status).toBe(200);
    const otherKey = await issueToken("e2e-intents-other", "intents:read,intents:write");
    const otherPreflight = await post(
      "/intents/v1/preflight",
      { userAddress: user.address, quoteId: quote.quoteId },
      otherKey,
    );
    expect(otherPreflight.status).toBe(404);
    expect(await json(otherPreflight)).toMatchObject({ code: "QUOTE_NOT_FOUND" });
  }, 30_000);

  it("needs the intents:read scope", async () => {
    const refused = await post("/intents/v1/quotes", quoteBody(), dataOnlyToken);
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({ code: "FORBIDDEN" });
  });
});

describe("status reads through the gateway", () => {
  it("serves pending and expired lists on their own paths, not as order ids", async () => {
    for (const list of ["pending", "expired"]) {
      const response = await get(`/intents/v1/intents/${list}?userAddress=${user.address.toLowerCase()}&limit=5`);
      expect(response.status).toBe(200);
      const body = await json(response);
      expect(body).toMatchObject({
        userAddress: user.address,
        page: { limit: 5 },
        _links: { self: { href: `/intents/v1/intents/${list}?userAddress=${user.address}&limit=5` } },
      });
      expect(Array.isArray(body._embedded.items)).toBe(true);
    }
  });

  it("answers INTENT_NOT_FOUND, NOT_FOUND transactions with 200, and bad paging parameters", async () => {
    const missing = await get(`/intents/v1/intents/0x${"00".repeat(31)}01`);
    expect(missing.status).toBe(404);
    expect(await json(missing)).toMatchObject({ code: "INTENT_NOT_FOUND", title: "Intent not found" });
    expect(await json(await get("/intents/v1/intents/not-an-order-id"))).toMatchObject({
      status: 400,
      code: "INVALID_PARAMETER",
    });

    const unknownTx = await get(`/intents/v1/intents?originChainId=31337&txHash=0x${"ee".repeat(32)}`);
    expect(unknownTx.status).toBe(200);
    expect(await json(unknownTx)).toMatchObject({ transactionStatus: "NOT_FOUND", _embedded: { items: [] } });

    const pending = `/intents/v1/intents/pending?userAddress=${user.address}`;
    expect(await json(await get(`${pending}&limit=101`))).toMatchObject({ status: 400, code: "INVALID_PARAMETER" });
    expect(await json(await get(`${pending}&cursor=not!a!cursor`))).toMatchObject({
      status: 400,
      code: "INVALID_CURSOR",
    });
    expect(await json(await get(`${pending}&cursor=eyJ2IjoxfQ`))).toMatchObject({
      status: 400,
      code: "INVALID_CURSOR",
    });
  });
});
