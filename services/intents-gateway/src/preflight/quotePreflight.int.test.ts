import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LazyPublisher, OutgoingRecord } from "@platform/bus";
import { type ChainConfig, chainConfigSchema } from "@platform/chain";
import {
  type DevnetDeployment,
  deployDevnet,
  devnetSettlerParams,
  fullSettlerAbi,
  testTokenAbi,
} from "@platform/devnet";
import {
  addressToBytes32,
  computeOrderId,
  decodeOrderData,
  orderDataTypeHash,
  toFullOrderData,
} from "@platform/devnet/intents";
import { createKeyConcurrency } from "@platform/grpc";
import {
  CheckStatus,
  type PreflightCheck,
  type PreflightResponse,
  type QuoteRequest,
  type QuoteResponse,
  TradeType,
} from "@platform/proto/intents/v1/intents";
import type { TcServiceClient } from "@platform/proto/tc/v1/tc";
import type { Signals } from "@platform/signals";
import { createRedis, type Redis } from "@platform/store";
import {
  freePort,
  type RunningAnvil,
  type RunningRedis,
  startAnvil,
  startRedis,
  tempDir,
  waitFor,
} from "@platform/testing";
import {
  type Address,
  createTestClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  maxUint256,
  parseEther,
  parseEventLogs,
  parseUnits,
  zeroAddress,
} from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIntentChains, type IntentChains } from "../chains/intentChains.js";
import { createTokenDecimals } from "../chains/tokenDecimals.js";
import { type NotifyDependencies, notify } from "../notify/notify.js";
import { type QuoteDependencies, quote } from "../quote/quote.js";
import { createQuoteStore } from "../quote/quoteStore.js";
import { buildRouteTable } from "../quote/routeTable.js";
import { type PreflightDependencies, preflight } from "./preflight.js";

/*
 * Quote → preflight → open against two anvil chains with the devnet contracts, the local
 * environment's routes (deploy/config/local/chains.json, plus a native-coin route) and a real Redis
 * holding the quotes. Every check is shown passing for a funded, approved user, and each failing
 * check is shown failing for the order that should trip it.
 */

const dir = tempDir("intents-quote-preflight");
const anvils: RunningAnvil[] = [];
let redisServer: RunningRedis;
let redis: Redis;
let deployment: DevnetDeployment;
let config: ChainConfig;
let chains: IntentChains;
let quoteDeps: QuoteDependencies;
let preflightDeps: PreflightDependencies;
let usdc: Address;
let settler: Address;

const ORIGIN = 31337;
const DESTINATION = 31338;
const localChains = fileURLToPath(new URL("../../../../deploy/config/local/chains.json", import.meta.url));
const funded = privateKeyToAccount(generatePrivateKey());
const broke = privateKeyToAccount(generatePrivateKey());
const unapproved = privateKeyToAccount(generatePrivateKey());
const gasless = privateKeyToAccount(generatePrivateKey());

function viemChain(chainId: number, rpcUrl: string) {
  return defineChain({
    id: chainId,
    name: `chain-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

async function send(
  account: PrivateKeyAccount,
  request: {
    address: Address;
    abi: typeof testTokenAbi | typeof fullSettlerAbi;
    functionName: string;
    args: readonly unknown[];
    value?: bigint;
  },
): Promise<Hex> {
  const origin = chains.get(ORIGIN)!;
  const wallet = createWalletClient({
    chain: viemChain(ORIGIN, origin.config.rpcUrl),
    transport: http(origin.config.rpcUrl),
    account,
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const hash = await wallet.writeContract(request as any);
  const receipt = await origin.client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  expect(receipt.status).toBe("success");
  return hash;
}

beforeAll(async () => {
  const [originAnvil, destinationAnvil, redisStarted] = await Promise.all([
    startAnvil({ chainId: ORIGIN, logFile: join(dir.path, "origin.log") }),
    startAnvil({ chainId: DESTINATION, logFile: join(dir.path, "destination.log") }),
    startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
  ]);
  anvils.push(originAnvil, destinationAnvil);
  redisServer = redisStarted;
  redis = createRedis({ url: redisServer.url, connectionName: "quote-preflight-test" });
  deployment = await deployDevnet({
    chains: [
      { name: "origin", chainId: ORIGIN, rpcUrl: originAnvil.rpcUrl, roles: ["origin"] },
      { name: "destination", chainId: DESTINATION, rpcUrl: destinationAnvil.rpcUrl, roles: ["destination"] },
    ],
  });

  // The local template with this run's RPC URLs and contracts, as the launcher writes it, plus a
  // native-coin route to cover the paths ERC-20 routes do not take.
  const template = JSON.parse(readFileSync(localChains, "utf8")) as {
    chains: Array<Record<string, unknown>>;
    routes: Array<Record<string, unknown>>;
  };
  const rpcUrls: Record<string, string> = { origin: originAnvil.rpcUrl, destination: destinationAnvil.rpcUrl };
  config = chainConfigSchema.parse({
    environment: "test",
    chains: template.chains
      .filter((chain) => chain["name"] !== "subtensor")
      .map((chain) => ({
        ...chain,
        rpcUrl: rpcUrls[chain["name"] as string],
        contracts: deployment.chains[chain["name"] as string]!.contracts,
      })),
    routes: [
      ...template.routes,
      {
        ...template.routes[0],
        inputToken: "ETH",
        outputToken: "ETH",
        fee: { bps: 10, fixed: "0" },
        limits: { min: "1000000000000000", max: "10000000000000000000" },
      },
    ],
  });
  chains = createIntentChains(config);
  const quotes = createQuoteStore(redis, 3_600, 5_000);
  const base = { routes: buildRouteTable(config), chains, decimals: createTokenDecimals(), quotes };
  // Limits far above what these tests run at once; "User-triggered chain reads" tests them.
  quoteDeps = { ...base, fillDeadlineWindowSeconds: 900, perKey: createKeyConcurrency(1_000, "quotes") };
  preflightDeps = { ...base, openGasFallback: 250_000n, perKey: createKeyConcurrency(1_000, "preflight checks") };
  usdc = deployment.chains["origin"]!.contracts.tokens!["USDC"]!;
  settler = deployment.chains["origin"]!.contracts.fullSettler!;

  const origin = chains.get(ORIGIN)!;
  const testClient = createTestClient({
    chain: viemChain(ORIGIN, originAnvil.rpcUrl),
    transport: http(originAnvil.rpcUrl),
    mode: "anvil",
  });
  for (const account of [funded, broke, unapproved])
    await testClient.setBalance({ address: account.address, value: parseEther("10") });
  const deployer = privateKeyToAccount(deployment.accounts.deployer.privateKey);
  for (const account of [funded, unapproved, gasless]) {
    await send(deployer, {
      address: usdc,
      abi: testTokenAbi,
      functionName: "mint",
      args: [account.address, parseUnits("1000", 6)],
    });
  }
  for (const account of [funded, broke])
    await send(account, { address: usdc, abi: testTokenAbi, functionName: "approve", args: [settler, maxUint256] });
  expect(
    await origin.client.readContract({
      address: usdc,
      abi: testTokenAbi,
      functionName: "balanceOf",
      args: [broke.address],
    }),
  ).toBe(0n);
  await waitFor(async () => redis.status === "ready", { what: "redis connection" });
}, 120_000);

afterAll(async () => {
  redis?.disconnect();
  await Promise.all([...anvils.map((anvil) => anvil.stop()), redisServer?.stop()]);
  dir.remove();
});

const usdcQuote = (overrides: Partial<QuoteRequest> = {}): QuoteRequest => ({
  originChainId: String(ORIGIN),
  destinationChainId: String(DESTINATION),
  inputToken: usdc,
  outputToken: deployment.chains["destination"]!.contracts.tokens!["USDC"]!,
  amount: String(parseUnits("100", 6)),
  tradeType: TradeType.TRADE_TYPE_EXACT_INPUT,
  userAddress: funded.address,
  ...overrides,
});

const checkOf = (answer: PreflightResponse, name: string): PreflightCheck => {
  const found = answer.checks.find((entry) => entry.name === name);
  if (found === undefined) throw new Error(`no check ${name}`);
  return found;
};
const statuses = (answer: PreflightResponse) =>
  Object.fromEntries(answer.checks.map((entry) => [entry.name, CheckStatus[entry.status]]));
const orderOf = (quoted: QuoteResponse) => quoted.settlement!.order!;
async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: { code?: string }) => error.code,
  );
}

describe("Quote", () => {
  it("prices a route, suggests a deadline within the settler's bounds and encodes the order", async () => {
    const before = Date.now();
    const quoted = await quote(quoteDeps, usdcQuote());
    const origin = chains.get(ORIGIN)!;
    const head = await origin.client.getBlock();

    expect(quoted).toMatchObject({
      quoteId: expect.stringMatching(/^q_[A-Za-z0-9_-]{22}$/),
      originChainId: "31337",
      destinationChainId: "31338",
      inputToken: usdc,
      inputAmount: "100000000",
      outputAmount: "99850000",
      minOutputAmount: "99850000",
      limits: { minInputAmount: "1000000", maxInputAmount: "100000000000" },
      estimatedFillTimeSeconds: 10,
      fees: {
        total: { amount: "150000", token: usdc, bps: 15 },
        breakdown: [
          { type: 1, amount: "50000", token: usdc, bps: 5 },
          { type: 2, amount: "100000", token: usdc, bps: 10 },
        ],
      },
      settlement: { fullSettler: settler, orderDataType: orderDataTypeHash },
    });
    const validUntil = new Date(quoted.validUntil).getTime();
    expect(validUntil).toBeGreaterThanOrEqual(before + 60_000);
    expect(validUntil).toBeLessThanOrEqual(Date.now() + 60_000);
    // 900 s on the destination clock: inside [now + 30 s, now + 1 day] on the origin with room for the TTL.
    expect(quoted.fillDeadline).toBeGreaterThan(Number(head.timestamp) + devnetSettlerParams.minFillWindowSeconds + 60);
    expect(quoted.fillDeadline).toBeLessThanOrEqual(Number(head.timestamp) + devnetSettlerParams.maxFillBufferSeconds);

    const decoded = decodeOrderData(quoted.settlement!.orderData as Hex);
    expect(decoded).toMatchObject({
      destinationChainId: 31338n,
      inputToken: addressToBytes32(usdc),
      inputAmount: 100_000_000n,
      outputAmount: 99_850_000n,
      recipient: addressToBytes32(funded.address),
    });
    expect(String(decoded.nonce)).toBe(orderOf(quoted).nonce);
    // A fresh random nonce each time: two quotes for one user are two distinct orders.
    expect((await quote(quoteDeps, usdcQuote())).settlement!.order!.nonce).not.toBe(orderOf(quoted).nonce);
  });

  it("quotes an exact output, a recipient other than the user, and no order data without either", async () => {
    const exactOutput = await quote(
      quoteDeps,
      usdcQuote({ amount: "99850000", tradeType: TradeType.TRADE_TYPE_EXACT_OUTPUT, recipient: broke.address }),
    );
    expect(exactOutput).toMatchObject({ inputAmount: "100000000", outputAmount: "99850000" });
    expect(decodeOrderData(exactOutput.settlement!.orderData as Hex).recipient).toBe(addressToBytes32(broke.address));

    const anonymous = await quote(quoteDeps, { ...usdcQuote(), userAddress: undefined });
    expect(anonymous.settlement).toMatchObject({ orderData: "", order: { recipient: "" } });
  });

  it("refuses an unsupported route, an amount outside the limits and malformed fields", async () => {
    expect(
      await codeOf(
        quote(quoteDeps, usdcQuote({ outputToken: deployment.chains["destination"]!.contracts.tokens!["WETH"]! })),
      ),
    ).toBe("UNSUPPORTED_ROUTE");
    expect(await codeOf(quote(quoteDeps, usdcQuote({ destinationChainId: "1" })))).toBe("UNSUPPORTED_ROUTE");
    expect(await codeOf(quote(quoteDeps, usdcQuote({ amount: "999999" })))).toBe("AMOUNT_OUTSIDE_LIMITS");
    expect(await codeOf(quote(quoteDeps, usdcQuote({ amount: "100000000001" })))).toBe("AMOUNT_OUTSIDE_LIMITS");
    expect(await codeOf(quote(quoteDeps, usdcQuote({ amount: "0" })))).toBe("INVALID_PARAMETER");
    expect(await codeOf(quote(quoteDeps, usdcQuote({ inputToken: "0x1234" })))).toBe("INVALID_ADDRESS");
    expect(await codeOf(quote(quoteDeps, usdcQuote({ tradeType: 7 as TradeType })))).toBe("INVALID_PARAMETER");
  });

  it("answers UNAVAILABLE when a chain's node cannot be reached", async () => {
    const deadPort = await freePort();
    const dead = chainConfigSchema.parse({
      ...config,
      chains: config.chains.map((chain) =>
        chain.chainId === DESTINATION
          ? {
              ...chain,
              rpcUrl: `http://127.0.0.1:${deadPort}`,
              rpc: { timeoutMs: 500, retryCount: 0, retryDelayMs: 0 },
            }
          : chain,
      ),
    });
    expect(await codeOf(quote({ ...quoteDeps, chains: createIntentChains(dead) }, usdcQuote()))).toBe("UNAVAILABLE");
  });
});

describe("Preflight: a passing order", () => {
  it("passes every check for a funded, approved user with the quote's order, which then opens with that orderId", async () => {
    const quoted = await quote(quoteDeps, usdcQuote());
    const answer = await preflight(preflightDeps, { userAddress: funded.address, quoteId: quoted.quoteId });
    expect(statuses(answer)).toEqual({
      ROUTE_SUPPORTED: "CHECK_STATUS_PASS",
      AMOUNT_WITHIN_LIMITS: "CHECK_STATUS_PASS",
      FEE_COVERED: "CHECK_STATUS_PASS",
      QUOTE_NOT_EXPIRED: "CHECK_STATUS_PASS",
      QUOTE_MATCHES: "CHECK_STATUS_PASS",
      FILL_DEADLINE_BOUNDS: "CHECK_STATUS_PASS",
      BALANCE: "CHECK_STATUS_PASS",
      ALLOWANCE: "CHECK_STATUS_PASS",
      NATIVE_GAS: "CHECK_STATUS_PASS",
      SIMULATION: "CHECK_STATUS_PASS",
    });
    expect(answer.ok).toBe(true);
    expect(checkOf(answer, "BALANCE")).toMatchObject({ expected: ">= 100000000", actual: "1000000000" });
    expect(checkOf(answer, "SIMULATION").actual).toMatch(/^succeeds, \d+ gas$/);
    expect(answer.asOf.map((asOf) => asOf.chainId)).toEqual(["31337", "31338"]);

    const order = orderOf(quoted);
    const expectedId = computeOrderId(
      toFullOrderData({
        params: decodeOrderData(quoted.settlement!.orderData as Hex),
        user: funded.address,
        originChainId: BigInt(ORIGIN),
        originSettler: settler,
        destinationSettler: addressToBytes32(deployment.chains["destination"]!.contracts.fullSettler!),
        fillDeadline: order.fillDeadline,
      }),
    );
    expect(answer.orderId).toBe(expectedId);

    // The same order with the full order sent instead of only the quote id passes too.
    expect((await preflight(preflightDeps, { userAddress: funded.address, quoteId: quoted.quoteId, order })).ok).toBe(
      true,
    );

    const hash = await send(funded, {
      address: settler,
      abi: fullSettlerAbi,
      functionName: "open",
      args: [
        {
          fillDeadline: quoted.fillDeadline,
          orderDataType: quoted.settlement!.orderDataType,
          orderData: quoted.settlement!.orderData,
        },
      ],
    });
    const receipt = await chains.get(ORIGIN)!.client.getTransactionReceipt({ hash });
    const [opened] = parseEventLogs({ abi: fullSettlerAbi, eventName: "Open", logs: receipt.logs });
    expect(opened!.args.orderId).toBe(answer.orderId);

    // Opened once, the nonce is used: the same order no longer simulates.
    const again = await preflight(preflightDeps, { userAddress: funded.address, order });
    expect(checkOf(again, "SIMULATION")).toMatchObject({
      status: CheckStatus.CHECK_STATUS_FAIL,
      actual: "reverts with NonceUsed",
    });
    expect(checkOf(again, "QUOTE_NOT_EXPIRED").status).toBe(CheckStatus.CHECK_STATUS_SKIPPED);
  });
});

describe("Preflight: route, amount, fee, balance and allowance checks", () => {
  it("fails ROUTE_SUPPORTED for a route the settler would accept but no filler serves", async () => {
    const order = {
      ...orderOf(await quote(quoteDeps, usdcQuote())),
      outputToken: deployment.chains["destination"]!.contracts.tokens!["WETH"]!,
    };
    const answer = await preflight(preflightDeps, { userAddress: funded.address, order });
    expect(checkOf(answer, "ROUTE_SUPPORTED").status).toBe(CheckStatus.CHECK_STATUS_FAIL);
    expect(checkOf(answer, "AMOUNT_WITHIN_LIMITS").status).toBe(CheckStatus.CHECK_STATUS_SKIPPED);
    // The contract itself takes it: only the route check keeps the user from locking funds in vain.
    expect(checkOf(answer, "SIMULATION").status).toBe(CheckStatus.CHECK_STATUS_PASS);
    expect(answer.ok).toBe(false);
  });

  it("fails AMOUNT_WITHIN_LIMITS below the minimum and FEE_COVERED for an output that leaves no fee", async () => {
    const base = orderOf(await quote(quoteDeps, usdcQuote()));
    const small = await preflight(preflightDeps, {
      userAddress: funded.address,
      order: { ...base, inputAmount: "500000", outputAmount: "400000" },
    });
    expect(checkOf(small, "AMOUNT_WITHIN_LIMITS")).toMatchObject({
      status: CheckStatus.CHECK_STATUS_FAIL,
      expected: ">= 1000000 and <= 100000000000",
      actual: "500000",
    });
    const greedy = await preflight(preflightDeps, {
      userAddress: funded.address,
      order: { ...base, outputAmount: base.inputAmount },
    });
    expect(checkOf(greedy, "FEE_COVERED")).toMatchObject({
      status: CheckStatus.CHECK_STATUS_FAIL,
      expected: "<= 99850000",
      actual: "100000000",
    });
    expect(greedy.ok).toBe(false);
  });

  it("fails BALANCE (and SIMULATION, naming the token's error) for a user without the input token", async () => {
    const quoted = await quote(quoteDeps, usdcQuote({ userAddress: broke.address }));
    const answer = await preflight(preflightDeps, { userAddress: broke.address, quoteId: quoted.quoteId });
    expect(checkOf(answer, "BALANCE")).toMatchObject({
      status: CheckStatus.CHECK_STATUS_FAIL,
      expected: ">= 100000000",
      actual: "0",
    });
    expect(checkOf(answer, "ALLOWANCE").status).toBe(CheckStatus.CHECK_STATUS_PASS);
    expect(checkOf(answer, "SIMULATION")).toMatchObject({
      status: CheckStatus.CHECK_STATUS_FAIL,
      actual: "reverts with TokenTransferFailed",
    });
    expect(checkOf(answer, "SIMULATION").message).toContain("ERC20InsufficientBalance");
  });

  it("fails ALLOWANCE for a user who has not approved the settler", async () => {
    const quoted = await quote(quoteDeps, usdcQuote({ userAddress: unapproved.address }));
    const answer = await preflight(preflightDeps, { userAddress: unapproved.address, quoteId: quoted.quoteId });
    expect(checkOf(answer, "ALLOWANCE")).toMatchObject({
      status: CheckStatus.CHECK_STATUS_FAIL,
      expected: ">= 100000000",
      actual: "0",
    });
    expect(checkOf(answer, "ALLOWANCE").message).toContain(settler);
    expect(checkOf(answer, "BALANCE").status).toBe(CheckStatus.CHECK_STATUS_PASS);
    expect(checkOf(answer, "SIMULATION").message).toContain("ERC20InsufficientAllowance");
  });
});

describe("Preflight: quote, deadline and gas checks, native-coin orders and malformed requests", () => {
  it("fails QUOTE_NOT_EXPIRED after validUntil and for an unknown quote, and matches the order to its quote", async () => {
    const quoted = await quote(quoteDeps, usdcQuote());
    const later = { ...preflightDeps, now: () => new Date(new Date(quoted.validUntil).getTime() + 1_000) };
    const expired = await preflight(later, { userAddress: funded.address, quoteId: quoted.quoteId });
    expect(checkOf(expired, "QUOTE_NOT_EXPIRED")).toMatchObject({
      status: CheckStatus.CHECK_STATUS_FAIL,
      expected: `now <= ${quoted.validUntil}`,
    });
    expect(expired.ok).toBe(false);

    const unknown = await preflight(preflightDeps, {
      userAddress: funded.address,
      quoteId: "q_AAAAAAAAAAAAAAAAAAAAAA",
      order: orderOf(quoted),
    });
    expect(checkOf(unknown, "QUOTE_NOT_EXPIRED").status).toBe(CheckStatus.CHECK_STATUS_FAIL);
    expect(
      await codeOf(preflight(preflightDeps, { userAddress: funded.address, quoteId: "q_AAAAAAAAAAAAAAAAAAAAAA" })),
    ).toBe("QUOTE_NOT_FOUND");

    const changed = await preflight(preflightDeps, {
      userAddress: funded.address,
      quoteId: quoted.quoteId,
      order: { ...orderOf(quoted), inputAmount: "200000000" },
    });
    expect(checkOf(changed, "QUOTE_MATCHES")).toMatchObject({
      status: CheckStatus.CHECK_STATUS_FAIL,
      message: "the order differs from the quote in inputAmount",
    });
  });

  it("fails FILL_DEADLINE_BOUNDS (and SIMULATION with the settler's error) for a deadline too near or too far", async () => {
    const order = orderOf(await quote(quoteDeps, usdcQuote()));
    const now = Number((await chains.get(ORIGIN)!.client.getBlock()).timestamp);
    for (const fillDeadline of [now + 5, now + 2 * 86_400]) {
      const answer = await preflight(preflightDeps, { userAddress: funded.address, order: { ...order, fillDeadline } });
      expect(checkOf(answer, "FILL_DEADLINE_BOUNDS")).toMatchObject({
        status: CheckStatus.CHECK_STATUS_FAIL,
        actual: String(fillDeadline),
      });
      expect(checkOf(answer, "SIMULATION")).toMatchObject({
        status: CheckStatus.CHECK_STATUS_FAIL,
        actual: "reverts with FillDeadlineOutOfBounds",
      });
    }
    const close = await preflight(preflightDeps, {
      userAddress: funded.address,
      order: { ...order, fillDeadline: now + devnetSettlerParams.minFillWindowSeconds + 20 },
    });
    expect(checkOf(close, "FILL_DEADLINE_BOUNDS").status).toBe(CheckStatus.CHECK_STATUS_WARN);
  });

  it("warns NATIVE_GAS for a user without native coin", async () => {
    const quoted = await quote(quoteDeps, usdcQuote({ userAddress: gasless.address }));
    const answer = await preflight(preflightDeps, { userAddress: gasless.address, quoteId: quoted.quoteId });
    expect(checkOf(answer, "NATIVE_GAS")).toMatchObject({ status: CheckStatus.CHECK_STATUS_WARN, actual: "0" });
    expect(checkOf(answer, "ALLOWANCE").status).toBe(CheckStatus.CHECK_STATUS_FAIL);
  });

  it("checks a native-coin order by its value: no allowance, the native balance, gas on top", async () => {
    const quoted = await quote(
      quoteDeps,
      usdcQuote({ inputToken: zeroAddress, outputToken: zeroAddress, amount: String(parseEther("1")) }),
    );
    expect(quoted).toMatchObject({ inputAmount: "1000000000000000000", outputAmount: "999000000000000000" });
    const answer = await preflight(preflightDeps, { userAddress: funded.address, quoteId: quoted.quoteId });
    expect(answer.ok).toBe(true);
    expect(checkOf(answer, "ALLOWANCE").status).toBe(CheckStatus.CHECK_STATUS_SKIPPED);
    expect(checkOf(answer, "SIMULATION").status).toBe(CheckStatus.CHECK_STATUS_PASS);

    const tooMuch = await preflight(preflightDeps, {
      userAddress: funded.address,
      order: { ...orderOf(quoted), inputAmount: String(parseEther("20")), outputAmount: "1" },
    });
    expect(checkOf(tooMuch, "BALANCE").status).toBe(CheckStatus.CHECK_STATUS_FAIL);
    expect(checkOf(tooMuch, "SIMULATION").status).toBe(CheckStatus.CHECK_STATUS_FAIL);
  });

  it("refuses a request without an order or quote, and malformed order fields", async () => {
    expect(await codeOf(preflight(preflightDeps, { userAddress: funded.address }))).toBe("INVALID_PARAMETER");
    expect(await codeOf(preflight(preflightDeps, { userAddress: "nope" }))).toBe("INVALID_ADDRESS");
    const order = orderOf(await quote(quoteDeps, usdcQuote()));
    expect(
      await codeOf(preflight(preflightDeps, { userAddress: funded.address, order: { ...order, nonce: "-1" } })),
    ).toBe("INVALID_PARAMETER");
    expect(
      await codeOf(preflight(preflightDeps, { userAddress: funded.address, order: { ...order, fillDeadline: 0 } })),
    ).toBe("INVALID_PARAMETER");
    expect(
      await codeOf(preflight(preflightDeps, { userAddress: funded.address, order: { ...order, recipient: "0x12" } })),
    ).toBe("INVALID_ADDRESS");
  });
});

/**
 * An HTTP JSON-RPC endpoint that counts the calls it gets (each call of a batch) and forwards them
 * to `target`, or answers every request with `failWith` (an HTTP status) when given.
 */
async function countingRpc(
  target: string,
  failWith?: number,
): Promise<{ url: string; methods: string[]; server: Server }> {
  const methods: string[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const parsed = JSON.parse(body) as { method: string } | { method: string }[];
      for (const call of Array.isArray(parsed) ? parsed : [parsed]) methods.push(call.method);
      if (failWith !== undefined) {
        response.statusCode = failWith;
        response.end("busy");
        return;
      }
      void fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body }).then(
        async (answer) => {
          response.setHeader("content-type", "application/json");
          response.end(await answer.text());
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, methods, server };
}

/** The counting RPC servers the abuse-limit tests start, closed after the last of them. */
const countingServers: Server[] = [];

/** The test chains with every RPC URL behind a counter: rpcUrl (what ingestion uses) and preflightRpcUrl. */
async function countedChains() {
  const counters = new Map<number, { ingestion: string[]; user: string[] }>();
  const chainsConfig = chainConfigSchema.parse({
    ...config,
    chains: await Promise.all(
      config.chains.map(async (chain) => {
        const [ingestion, user] = await Promise.all([countingRpc(chain.rpcUrl), countingRpc(chain.rpcUrl)]);
        countingServers.push(ingestion.server, user.server);
        counters.set(chain.chainId, { ingestion: ingestion.methods, user: user.methods });
        return { ...chain, rpcUrl: ingestion.url, preflightRpcUrl: user.url };
      }),
    ),
  });
  const counted = createIntentChains(chainsConfig);
  const count = () =>
    [...counters.values()].reduce((sum, entry) => sum + entry.user.length + entry.ingestion.length, 0);
  return { chains: counted, counters, count };
}

describe("User-triggered chain reads (abuse limits)", () => {
  afterAll(async () => Promise.all(countingServers.map((server) => new Promise((resolve) => server.close(resolve)))));

  it("refuses an order whose token no configured route names with 400 UNSUPPORTED_ROUTE, before any RPC request", async () => {
    const { chains: counted, count } = await countedChains();
    const deps = { ...preflightDeps, chains: counted, decimals: createTokenDecimals() };
    const order = orderOf(await quote(quoteDeps, usdcQuote()));
    // A contract the user chose (here the settler itself, any address will do): its balanceOf, allowance and `open` would run on the node.
    for (const changed of [{ inputToken: settler }, { outputToken: settler }]) {
      const refused = await preflight(deps, { userAddress: funded.address, order: { ...order, ...changed } }).catch(
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({ code: "UNSUPPORTED_ROUTE", httpStatus: 400 });
      expect((refused as { extras: Record<string, unknown> }).extras).toMatchObject({
        parameter: Object.keys(changed)[0] === "outputToken" ? "order.outputToken" : "order.inputToken",
      });
    }
    expect(count()).toBe(0);
    // Two configured tokens that no route pairs are still checked (ROUTE_SUPPORTED fails): every read is of an operator's token.
    const crossed = await preflight(deps, {
      userAddress: funded.address,
      order: { ...order, outputToken: deployment.chains["destination"]!.contracts.tokens!["WETH"]! },
    });
    expect(checkOf(crossed, "ROUTE_SUPPORTED").status).toBe(CheckStatus.CHECK_STATUS_FAIL);
  });

  it("reads through the chain's preflightRpcUrl on a client of its own, never the ingestion URL, and retries at most once", async () => {
    const { chains: counted, counters } = await countedChains();
    const answer = await preflight(
      { ...preflightDeps, chains: counted, decimals: createTokenDecimals() },
      { userAddress: funded.address, order: orderOf(await quote(quoteDeps, usdcQuote())) },
    );
    expect(answer.ok).toBe(true);
    expect(counters.get(ORIGIN)!.user).toEqual(
      expect.arrayContaining(["eth_call", "eth_getBalance", "eth_estimateGas"]),
    );
    expect(counters.get(ORIGIN)!.ingestion).toEqual([]);
    expect(counters.get(DESTINATION)!.ingestion).toEqual([]);

    // A node answering 503 to everything, with the chains file's 3 retries: asked twice (one retry), then 503 to the user.
    const busy = await countingRpc("", 503);
    countingServers.push(busy.server);
    const flaky = createIntentChains(
      chainConfigSchema.parse({
        ...config,
        chains: config.chains.map((chain) => ({
          ...chain,
          preflightRpcUrl: busy.url,
          rpc: { timeoutMs: 2_000, retryCount: 3, retryDelayMs: 1 },
        })),
      }),
    );
    await expect(flaky.get(ORIGIN)!.client.getBlockNumber({ cacheTime: 0 })).rejects.toThrow();
    expect(busy.methods).toEqual(["eth_blockNumber", "eth_blockNumber"]);
    expect(
      await codeOf(
        preflight(
          { ...preflightDeps, chains: flaky, decimals: createTokenDecimals() },
          { userAddress: funded.address, order: orderOf(await quote(quoteDeps, usdcQuote())) },
        ),
      ),
    ).toBe("UNAVAILABLE");
  });

  it("bounds each chain-touching call per API key: a key's call beyond the limit answers 429 RATE_LIMITED at once, other keys go on", async () => {
    const one = (what: string) => createKeyConcurrency(1, what);
    const limitedQuote = { ...quoteDeps, perKey: one("quotes") };
    const quotes = await Promise.allSettled([
      quote(limitedQuote, usdcQuote(), "key-a"),
      quote(limitedQuote, usdcQuote(), "key-a"),
      quote(limitedQuote, usdcQuote(), "key-b"),
    ]);
    expect(quotes.map((settled) => settled.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((quotes[1] as PromiseRejectedResult).reason).toMatchObject({ code: "RATE_LIMITED", httpStatus: 429 });
    // The slot is free again once the key's call ended.
    await expect(quote(limitedQuote, usdcQuote(), "key-a")).resolves.toMatchObject({ quoteId: expect.any(String) });

    const order = orderOf(await quote(quoteDeps, usdcQuote()));
    const limitedPreflight = { ...preflightDeps, perKey: one("preflight checks") };
    const checks = await Promise.allSettled([
      preflight(limitedPreflight, { userAddress: funded.address, order }, "key-a"),
      preflight(limitedPreflight, { userAddress: funded.address, order }, "key-a"),
    ]);
    expect(checks.map((settled) => settled.status)).toEqual(["fulfilled", "rejected"]);
    expect((checks[1] as PromiseRejectedResult).reason).toMatchObject({ code: "RATE_LIMITED", httpStatus: 429 });
  });

  describe("notifications", notificationTests);
});

/** The "notifications" tests of "User-triggered chain reads": notify looks a transaction up on the user's RPC, once. */
function notificationTests() {
  const published: OutgoingRecord[] = [];
  const hints: unknown[] = [];
  const tc = {
    checkGate: (
      _request: unknown,
      _metadata: unknown,
      _options: unknown,
      callback: (error: null, response: { allowed: boolean; currentTcVersion: number }) => void,
    ) => callback(null, { allowed: true, currentTcVersion: 1 }),
  } as unknown as TcServiceClient;
  const publisher = {
    publish: async (records: readonly OutgoingRecord[]) => (published.push(...records), []),
    connected: () => true,
    close: async () => undefined,
  } as unknown as LazyPublisher;
  const signals: Signals = {
    publish: (_subject, payload) => (hints.push(payload), true),
    subscribe: () => () => undefined,
    ready: async () => true,
    close: async () => undefined,
  };
  const notifyDeps = (chainsForReads: IntentChains): NotifyDependencies => ({
    tc,
    redis,
    publisher,
    signals,
    originChainIds: new Set([String(ORIGIN), String(DESTINATION)]),
    chains: chainsForReads,
    perKey: createKeyConcurrency(1_000, "notifications"),
  });
  const notifyAs = (deps: NotifyDependencies, userAddress: string, txHash: string) =>
    notify(deps, { userAddress, originChainId: String(ORIGIN), txHash }, "key-1", Date.now() + 5_000);

  it("bounds notifications per API key: one beyond the limit answers 429 RATE_LIMITED before any look-up", async () => {
    const { chains: counted, counters } = await countedChains();
    const deps = { ...notifyDeps(counted), perKey: createKeyConcurrency(1, "notifications") };
    const unknown = `0x${"5b".repeat(32)}`;
    const settled = await Promise.allSettled([
      notifyAs(deps, funded.address, unknown),
      notifyAs(deps, funded.address, unknown),
    ]);
    expect(settled.map((entry) => (entry as PromiseRejectedResult).reason?.code)).toEqual([
      "TRANSACTION_NOT_FOUND",
      "RATE_LIMITED",
    ]);
    expect(counters.get(ORIGIN)!.user).toEqual(["eth_getTransactionByHash"]);
  });

  it("looks a notified hash up once: an unknown one is refused with 404 TRANSACTION_NOT_FOUND and publishes nothing", async () => {
    const { chains: counted, counters } = await countedChains();
    const deps = notifyDeps(counted);
    const unknown = `0x${"5a".repeat(32)}`;
    const refused = await notifyAs(deps, funded.address, unknown).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "TRANSACTION_NOT_FOUND", httpStatus: 404 });
    expect(counters.get(ORIGIN)!.user).toEqual(["eth_getTransactionByHash"]);
    expect(counters.get(ORIGIN)!.ingestion).toEqual([]);
    expect(published).toEqual([]);
    expect(hints).toEqual([]);
  });

  it("publishes a known transaction once for its sender, refuses another wallet's claim (403 TX_SENDER_MISMATCH), and answers repeats without the chain", async () => {
    const { chains: counted, counters } = await countedChains();
    const deps = notifyDeps(counted);
    const txHash = await send(funded, {
      address: usdc,
      abi: testTokenAbi,
      functionName: "approve",
      args: [settler, maxUint256],
    });
    const squat = await notifyAs(deps, broke.address, txHash).catch((error: unknown) => error);
    expect(squat).toMatchObject({ code: "TX_SENDER_MISMATCH", httpStatus: 403 });
    expect(published).toEqual([]);
    // The squatter's attempt does not block the sender.
    expect(await notifyAs(deps, funded.address, txHash)).toMatchObject({
      created: true,
      txHash: txHash.toLowerCase(),
    });
    expect(published.map((record) => record.eventType)).toEqual(["IntentNotified"]);
    expect(hints).toEqual([{ chainId: String(ORIGIN), txHash: txHash.toLowerCase(), apiKeyId: "key-1" }]);
    const lookups = counters.get(ORIGIN)!.user.length;
    expect(lookups).toBe(2);
    expect(await notifyAs(deps, funded.address, txHash)).toMatchObject({ created: false });
    expect(counters.get(ORIGIN)!.user.length).toBe(lookups);
    expect(published).toHaveLength(1);
  });
}
