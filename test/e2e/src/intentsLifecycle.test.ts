import { waitFor } from "@platform/testing";
import { encodeFunctionData, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { intentEventsSuite } from "./support/intentEventsSuite.js";
import {
  acceptTerms,
  fillAsFiller,
  fullSettlerAbi,
  fundUser,
  openOrder,
  orderOfQuote,
  refund,
  settleAsOracle,
} from "./support/intentsActors.js";
import {
  advanceClock,
  type IntentsStack,
  intentBecomes,
  type Json,
  startIntentsStack,
} from "./support/intentsStack.js";

// Issue 5's acceptance through the public API and the chains only, on one local stack without the
// simulator: the test is the user, the filler and the oracle. WETH quotes live 2 s here, so one can expire.
let s: IntentsStack;
const QUOTE_TTL_WETH = 2;

beforeAll(async () => {
  s = await startIntentsStack("e2e-intents-lifecycle", {
    editTemplate: (template) => {
      for (const route of template.routes as Json[])
        if (route.inputToken === "WETH") route.quoteTtlSeconds = QUOTE_TTL_WETH;
    },
  });
}, 240_000);

afterAll(async () => {
  await s?.stop();
}, 120_000);

const lower = (value: string) => value.toLowerCase();
const quoteBody = (userAddress: string, overrides: Record<string, unknown> = {}) => ({
  originChainId: 31337,
  destinationChainId: 31338,
  inputToken: s.origin.usdc,
  outputToken: s.destination.usdc,
  amount: "100000000",
  userAddress,
  ...overrides,
});
const quoteFor = async (userAddress: string, overrides: Record<string, unknown> = {}) => {
  const response = await s.api.post("/intents/v1/quotes", quoteBody(userAddress, overrides));
  expect(response.status).toBe(200);
  return s.api.json(response);
};
const checksByName = (preflight: Json) =>
  Object.fromEntries((preflight.checks as Json[]).map((check) => [check.name, check]));
const listIds = async (list: "pending" | "expired", user: string) => {
  const body = await s.api.json(await s.api.get(`/intents/v1/intents/${list}?userAddress=${user}&limit=100`));
  return body._embedded.items as Json[];
};
const byTx = async (txHash: string) =>
  s.api.json(await s.api.get(`/intents/v1/intents?originChainId=31337&txHash=${txHash}`));

describe("an intent's life through the API and the chains", () => {
  it("quote → preflight → open → OPEN within 2 s → fill → FILLED → settle → SETTLED", async () => {
    const user = privateKeyToAccount(generatePrivateKey());
    await fundUser(s, user, { usdc: 1_000_000_000n });

    const quote = await quoteFor(user.address);
    const preflight = await s.api.json(
      await s.api.post("/intents/v1/preflight", { userAddress: user.address, quoteId: quote.quoteId }),
    );
    expect(preflight.ok).toBe(true);
    expect((preflight.checks as Json[]).every((check) => check.status === "pass")).toBe(true);

    const opened = await openOrder(s.origin, user, orderOfQuote(quote));
    const minedAt = Date.now();
    expect(opened.orderId).toBe(preflight.orderId);
    const open = await intentBecomes(
      s.api,
      opened.orderId,
      (record) => record?.status === "OPEN",
      "OPEN within 2 s",
      2_000,
    );
    expect(Date.now() - minedAt).toBeLessThan(2_000);
    expect(open).toMatchObject({
      orderId: opened.orderId,
      isFinal: false,
      originChainId: 31337,
      destinationChainId: 31338,
      originTxHash: opened.hash,
      input: { amount: "100000000" },
      output: { amount: quote.outputAmount },
      fillDeadline: quote.fillDeadline,
      opened: { chainId: 31337, txHash: opened.hash, blockNumber: Number(opened.receipt.blockNumber) },
      filled: null,
      settled: null,
    });
    expect(lower(open!.userAddress)).toBe(lower(user.address));
    expect(lower(open!.input.token)).toBe(lower(s.origin.usdc));
    expect((await listIds("pending", user.address)).map((item) => item.orderId)).toEqual([opened.orderId]);

    const fill = await fillAsFiller(s, opened);
    const filled = await intentBecomes(s.api, opened.orderId, (record) => record?.status === "FILLED", "FILLED");
    expect(filled).toMatchObject({ isFinal: false, filled: { chainId: 31338, txHash: fill.transactionHash } });
    expect(lower(filled!.filler)).toBe(lower(s.filler.address));

    const settle = await settleAsOracle(s, opened.orderId);
    const settled = await intentBecomes(s.api, opened.orderId, (record) => record?.status === "SETTLED", "SETTLED");
    expect(settled).toMatchObject({
      isFinal: true,
      settled: { chainId: 31337, txHash: settle.transactionHash },
      filled: { txHash: fill.transactionHash },
    });
    expect(await listIds("pending", user.address)).toEqual([]);
  }, 60_000);

  it("an order left unfilled past its deadline is listed as expired with refundableAt; refunded, it leaves the list", async () => {
    const user = privateKeyToAccount(generatePrivateKey());
    await fundUser(s, user, { usdc: 1_000_000_000n });
    const quote = await quoteFor(user.address);
    const opened = await openOrder(s.origin, user, orderOfQuote(quote));
    await intentBecomes(s.api, opened.orderId, (record) => record?.status === "OPEN", "OPEN");

    // The destination's clock decides expiry: move it past the deadline, nobody having filled.
    const destinationNow = (await s.destination.publicClient.getBlock()).timestamp;
    await advanceClock(s.destination, quote.fillDeadline - Number(destinationNow) + 5);
    const expired = await intentBecomes(s.api, opened.orderId, (record) => record?.status === "EXPIRED", "EXPIRED");
    const refundableAt = new Date((quote.fillDeadline + 60) * 1_000).toISOString();
    expect(expired).toMatchObject({ isFinal: false, refundableAt, filled: null });
    const listed = await listIds("expired", user.address);
    expect(listed.map((item) => item.orderId)).toEqual([opened.orderId]);
    expect(listed[0]).toMatchObject({ status: "EXPIRED", refundableAt });

    // The origin's clock decides the refund: from fillDeadline + the settler's 60 s grace.
    const originNow = (await s.origin.publicClient.getBlock()).timestamp;
    await advanceClock(s.origin, quote.fillDeadline + 60 - Number(originNow) + 2);
    const refunded = await refund(s.origin, user, opened.orderId);
    const final = await intentBecomes(s.api, opened.orderId, (record) => record?.status === "REFUNDED", "REFUNDED");
    expect(final).toMatchObject({ isFinal: true, refunded: { chainId: 31337, txHash: refunded.transactionHash } });
    expect(await listIds("expired", user.address)).toEqual([]);
    expect(await listIds("pending", user.address)).toEqual([]);
  }, 60_000);
});

describe("preflight names the failing check", () => {
  const failing = (preflight: Json, name: string) => {
    expect(preflight.ok).toBe(false);
    const check = checksByName(preflight)[name];
    expect(check, `${name} in ${JSON.stringify(preflight.checks)}`).toMatchObject({ status: "fail" });
    return check as Json;
  };
  const decodedOrder = async (user: string, overrides: Record<string, unknown> = {}) => ({
    originChainId: 31337,
    destinationChainId: 31338,
    inputToken: s.origin.usdc,
    inputAmount: "100000000",
    outputToken: s.destination.usdc,
    outputAmount: "99850000",
    recipient: user,
    nonce: String(Date.now()),
    fillDeadline: Number((await s.origin.publicClient.getBlock()).timestamp) + 900,
    ...overrides,
  });
  const preflightOf = async (user: string, order: Json) =>
    s.api.json(await s.api.post("/intents/v1/preflight", { userAddress: user, order }));

  it("for an unsupported route and an amount outside the limits", async () => {
    const user = privateKeyToAccount(generatePrivateKey());
    await fundUser(s, user, { usdc: 1_000_000_000n });
    const route = failing(
      await preflightOf(user.address, await decodedOrder(user.address, { outputToken: s.destination.weth })),
      "ROUTE_SUPPORTED",
    );
    expect(route.expected).toBe("a configured route");

    const amount = failing(
      await preflightOf(user.address, await decodedOrder(user.address, { inputAmount: "10", outputAmount: "5" })),
      "AMOUNT_WITHIN_LIMITS",
    );
    expect(amount).toMatchObject({ expected: ">= 1000000 and <= 100000000000", actual: "10" });
    const above = failing(
      await preflightOf(
        user.address,
        await decodedOrder(user.address, { inputAmount: "100000000001", outputAmount: "99000000000" }),
      ),
      "AMOUNT_WITHIN_LIMITS",
    );
    expect(above.actual).toBe("100000000001");
  }, 30_000);

  it("refuses a token no configured route names with 400 UNSUPPORTED_ROUTE, before reading the chain", async () => {
    const user = privateKeyToAccount(generatePrivateKey());
    // Any contract the user picks (here the settler): its balanceOf, allowance and `open` would run on the node.
    const refused = await s.api.post("/intents/v1/preflight", {
      userAddress: user.address,
      order: await decodedOrder(user.address, { inputToken: s.origin.settler }),
    });
    expect(refused.status).toBe(400);
    expect(await s.api.json(refused)).toMatchObject({
      status: 400,
      code: "UNSUPPORTED_ROUTE",
      parameter: "order.inputToken",
      title: "Unsupported route",
    });
  });

  it("for too little balance and a missing allowance", async () => {
    const poor = privateKeyToAccount(generatePrivateKey());
    await fundUser(s, poor, { usdc: 5_000_000n });
    const short = await preflightOf(poor.address, await decodedOrder(poor.address));
    expect(failing(short, "BALANCE")).toMatchObject({ expected: ">= 100000000", actual: "5000000" });
    expect(checksByName(short)["ALLOWANCE"].status).toBe("pass");

    const unapproved = privateKeyToAccount(generatePrivateKey());
    await fundUser(s, unapproved, { usdc: 1_000_000_000n, approve: false });
    const noAllowance = await preflightOf(unapproved.address, await decodedOrder(unapproved.address));
    expect(failing(noAllowance, "ALLOWANCE")).toMatchObject({ expected: ">= 100000000", actual: "0" });
    expect(checksByName(noAllowance)["BALANCE"].status).toBe("pass");
  }, 30_000);

  it("for an expired quote", async () => {
    const user = privateKeyToAccount(generatePrivateKey());
    const quote = await quoteFor(user.address, {
      inputToken: s.origin.weth,
      outputToken: s.destination.weth,
      amount: "10000000000000000",
    });
    const validUntil = Date.parse(quote.validUntil);
    expect(validUntil - Date.now()).toBeLessThanOrEqual(QUOTE_TTL_WETH * 1_000);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, validUntil - Date.now()) + 500));
    const preflight = await s.api.json(
      await s.api.post("/intents/v1/preflight", { userAddress: user.address, quoteId: quote.quoteId }),
    );
    expect(failing(preflight, "QUOTE_NOT_EXPIRED")).toMatchObject({ expected: `now <= ${quote.validUntil}` });
  }, 30_000);

  it("for a fill deadline below or above the settler's bounds", async () => {
    const user = privateKeyToAccount(generatePrivateKey());
    await fundUser(s, user, { usdc: 1_000_000_000n });
    const now = Number((await s.origin.publicClient.getBlock()).timestamp);
    const tooSoon = failing(
      await preflightOf(user.address, await decodedOrder(user.address, { fillDeadline: now + 5 })),
      "FILL_DEADLINE_BOUNDS",
    );
    expect(tooSoon.actual).toBe(String(now + 5));
    // The devnet settler allows 30 s to 86,400 s after the origin's latest block.
    failing(
      await preflightOf(user.address, await decodedOrder(user.address, { fillDeadline: now + 2 * 86_400 })),
      "FILL_DEADLINE_BOUNDS",
    );
    const inBounds = await preflightOf(user.address, await decodedOrder(user.address, { fillDeadline: now + 900 }));
    expect(checksByName(inBounds)["FILL_DEADLINE_BOUNDS"].status).toBe("pass");
  }, 30_000);
});

describe("notifications of an order's opening transaction", () => {
  it("shows SUBMITTED before mining, records a repeated notification once, and OPEN once mined", async () => {
    const user = privateKeyToAccount(generatePrivateKey());
    await fundUser(s, user, { usdc: 1_000_000_000n });
    await acceptTerms(s.api, user);
    const quote = await quoteFor(user.address);

    // Hold the origin's blocks so the transaction waits in the pool while it is notified.
    await s.origin.testClient.setIntervalMining({ interval: 0 });
    let txHash: Hex;
    try {
      txHash = await s.origin.wallet(user).writeContract({
        address: s.origin.settler,
        abi: fullSettlerAbi,
        functionName: "open",
        args: [orderOfQuote(quote)],
      });
      const first = await s.api.post("/intents/v1/intents", {
        userAddress: user.address,
        originChainId: 31337,
        txHash,
      });
      expect(first.status).toBe(202);
      expect(await s.api.json(first)).toMatchObject({ status: "SUBMITTED", created: true, txHash });
      const submitted = await waitFor(
        async () => {
          const answer = await byTx(txHash);
          return answer._embedded.items.length > 0 ? answer : undefined;
        },
        { what: "the SUBMITTED record", timeoutMs: 10_000 },
      );
      expect(submitted).toMatchObject({
        transactionStatus: "PENDING",
        _embedded: { items: [{ status: "SUBMITTED", orderId: null }] },
      });

      const again = await s.api.post("/intents/v1/intents", {
        userAddress: user.address,
        originChainId: 31337,
        txHash,
      });
      expect(again.status).toBe(202);
      expect(await s.api.json(again)).toMatchObject({ status: "SUBMITTED", created: false });
    } finally {
      await s.origin.testClient.setIntervalMining({ interval: 1 });
    }
    await s.origin.testClient.mine({ blocks: 1 });
    const receipt = await s.origin.publicClient.waitForTransactionReceipt({ hash: txHash });
    expect(receipt.status).toBe("success");

    const mined = await waitFor(
      async () => {
        const answer = await byTx(txHash);
        return answer.transactionStatus === "SUCCEEDED" &&
          answer._embedded.items[0]?.status === "OPEN" &&
          answer._embedded.items[0]?.notifiedAt
          ? answer
          : undefined;
      },
      { what: "the transaction's order OPEN with its notification", timeoutMs: 10_000 },
    );
    // Two notifications, one transaction, one record.
    expect(mined._embedded.items).toHaveLength(1);
    expect(mined._embedded.items[0]).toMatchObject({ originTxHash: txHash, status: "OPEN" });
  }, 60_000);

  it("refuses a hash the origin chain does not know (404) and a claim by a wallet that did not send it (403); the sender's own still records", async () => {
    const user = privateKeyToAccount(generatePrivateKey());
    const squatter = privateKeyToAccount(generatePrivateKey());
    await fundUser(s, user, { usdc: 1_000_000_000n });
    await acceptTerms(s.api, user);
    await acceptTerms(s.api, squatter);
    // A made-up hash costs one look-up at the gateway and nothing at the ingestor: it is never published.
    const unknown = await s.api.post("/intents/v1/intents", {
      userAddress: user.address,
      originChainId: 31337,
      txHash: `0x${"5b".repeat(32)}`,
    });
    expect(unknown.status).toBe(404);
    expect(await s.api.json(unknown)).toMatchObject({ status: 404, code: "TRANSACTION_NOT_FOUND" });
    expect((await byTx(`0x${"5b".repeat(32)}`)).transactionStatus).toBe("NOT_FOUND");

    const opened = await openOrder(s.origin, user, orderOfQuote(await quoteFor(user.address)));
    const squat = await s.api.post("/intents/v1/intents", {
      userAddress: squatter.address,
      originChainId: 31337,
      txHash: opened.hash,
    });
    expect(squat.status).toBe(403);
    expect(await s.api.json(squat)).toMatchObject({ status: 403, code: "TX_SENDER_MISMATCH" });
    const own = await s.api.post("/intents/v1/intents", {
      userAddress: user.address,
      originChainId: 31337,
      txHash: opened.hash,
    });
    expect(own.status).toBe(202);
    expect(await s.api.json(own)).toMatchObject({ created: true });
    await waitFor(async () => ((await s.api.intent(opened.orderId))?.notifiedAt ? true : undefined), {
      what: "the sender's notification on the record",
      timeoutMs: 10_000,
    });
    expect(await s.api.intent(opened.orderId)).toMatchObject({ userAddress: user.address, status: "OPEN" });
  }, 60_000);
});

describe("notifications of a reverted transaction and from a wallet without the T&C", () => {
  it("answers REVERTED for a notified transaction that failed on chain", async () => {
    const user = privateKeyToAccount(generatePrivateKey());
    await fundUser(s, user, { usdc: 0n, approve: false });
    await acceptTerms(s.api, user);
    const now = Number((await s.origin.publicClient.getBlock()).timestamp);
    // A wrong orderDataType: open reverts; the explicit gas limit keeps the wallet from refusing to send it.
    const data = encodeFunctionData({
      abi: fullSettlerAbi,
      functionName: "open",
      args: [{ fillDeadline: now + 900, orderDataType: `0x${"00".repeat(32)}`, orderData: "0x" }],
    });
    const txHash = await s.origin.wallet(user).sendTransaction({ to: s.origin.settler, data, gas: 300_000n });
    expect((await s.origin.publicClient.waitForTransactionReceipt({ hash: txHash })).status).toBe("reverted");

    const notified = await s.api.post("/intents/v1/intents", {
      userAddress: user.address,
      originChainId: 31337,
      txHash,
    });
    expect(notified.status).toBe(202);
    const answer = await waitFor(
      async () => {
        const current = await byTx(txHash);
        return current.transactionStatus === "REVERTED" && current._embedded.items[0]?.status === "REVERTED"
          ? current
          : undefined;
      },
      { what: "REVERTED", timeoutMs: 15_000 },
    );
    expect(answer._embedded.items).toHaveLength(1);
    expect(answer._embedded.items[0]).toMatchObject({ status: "REVERTED", isFinal: true });
  }, 60_000);

  it("refuses a wallet without the current T&C with 403 TC_NOT_ACCEPTED and both versions", async () => {
    const stranger = privateKeyToAccount(generatePrivateKey());
    const refused = await s.api.post("/intents/v1/intents", {
      userAddress: stranger.address,
      originChainId: 31337,
      txHash: `0x${"ab".repeat(32)}`,
    });
    expect(refused.status).toBe(403);
    expect(await s.api.json(refused)).toMatchObject({
      status: 403,
      code: "TC_NOT_ACCEPTED",
      acceptedVersion: null,
      currentTcVersion: 1,
      type: expect.stringMatching(/tc-not-accepted$/),
    });
  });
});

intentEventsSuite(() => s);
