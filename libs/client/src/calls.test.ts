import { decodeFunctionData, erc20Abi, maxUint256, zeroAddress } from "viem";
import { describe, expect, it } from "vitest";
// The workspace's own copies, which the published client cannot depend on: what it carries must equal them.
import { fullSettlerAbi } from "../../settler/src/generated/fullSettlerAbi.js";
import { addressToBytes32, encodeOrderData, orderDataTypeHash } from "../../settler/src/orderData.js";
import { buildOpenCalls, type Call, OpenCallsError, openCalls, type QuoteForCalls } from "./calls.js";
import { FULL_ORDER_DATA_TYPE, fullSettlerOpenAbi } from "./callsAbi.js";
import { ClientError } from "./clientError.js";
import { parseDeployment } from "./deployments.js";
import type { Deployment } from "./deploymentsSchema.js";

const SETTLER = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";
const OTHER_SETTLER = "0x5FC8d32690cc91D4c39d9d3abcBD16989F875707";
const USDC = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const DEST_USDC = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";
const USER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const DEAD = "0x000000000000000000000000000000000000dEaD";
// Far ahead of any test run's clock; the deadline checks take `nowSeconds` where time matters.
const FILL_DEADLINE = 4_000_000_000;

const token = (symbol: string, address: string | null, decimals = 6) => ({ symbol, name: symbol, decimals, address });
const route = (inputToken: string, outputToken: string) => ({
  originChainId: 31337,
  destinationChainId: 31338,
  inputToken,
  outputToken,
  limits: { minInputAmount: "1000000", maxInputAmount: "100000000000000000000" },
  fee: { bps: 5, fixedAmount: "100000" },
  fillTimeEstimateSeconds: 10,
  quoteTtlSeconds: 60,
});
const deployment: Deployment = parseDeployment({
  schemaVersion: 1,
  environment: "test",
  chains: [
    {
      chainId: 31337,
      name: "origin",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      fullSettler: SETTLER,
      tokens: [token("USDC", USDC), token("ETH", zeroAddress, 18)],
    },
    {
      chainId: 31338,
      name: "destination",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      fullSettler: OTHER_SETTLER,
      tokens: [token("USDC", DEST_USDC), token("ETH", zeroAddress, 18)],
    },
  ],
  routes: [route("USDC", "USDC"), route("ETH", "ETH")],
});

function quote(
  overrides: {
    inputToken?: string;
    outputToken?: string;
    inputAmount?: bigint;
    recipient?: string;
    nonce?: bigint;
  } = {},
): QuoteForCalls {
  const inputToken = overrides.inputToken ?? USDC;
  const outputToken = overrides.outputToken ?? DEST_USDC;
  const inputAmount = overrides.inputAmount ?? 100_000_000n;
  const outputAmount = inputAmount - 150_000n;
  return {
    originChainId: 31337,
    destinationChainId: 31338,
    inputToken,
    outputToken,
    inputAmount: String(inputAmount),
    outputAmount: String(outputAmount),
    fillDeadline: FILL_DEADLINE,
    settlement: {
      fullSettler: SETTLER,
      orderDataType: orderDataTypeHash,
      orderData: encodeOrderData({
        nonce: overrides.nonce ?? 42n,
        destinationChainId: 31338n,
        inputToken: addressToBytes32(inputToken as `0x${string}`),
        inputAmount,
        outputToken: addressToBytes32(outputToken as `0x${string}`),
        outputAmount,
        recipient: addressToBytes32((overrides.recipient ?? USER) as `0x${string}`),
      }),
    },
  };
}

const decodeOpen = (call: Call) => decodeFunctionData({ abi: fullSettlerOpenAbi, data: call.data });

describe("the ABI the client carries", () => {
  it("is FullSettler.open exactly as the committed contract ABI has it, and its orderDataType", () => {
    expect(fullSettlerOpenAbi).toEqual(
      fullSettlerAbi.filter((item) => item.type === "function" && "name" in item && item.name === "open"),
    );
    expect(FULL_ORDER_DATA_TYPE).toBe(orderDataTypeHash);
  });
});

describe("openCalls", () => {
  it("approves exactly the input amount when the allowance is short, then opens the quoted order", () => {
    const calls = openCalls({ quote: quote(), deployment, owner: USER, allowance: 99_999_999n });
    expect(calls.map(({ chainId, to, value }) => ({ chainId, to, value }))).toEqual([
      { chainId: 31337, to: USDC, value: 0n },
      { chainId: 31337, to: SETTLER, value: 0n },
    ]);
    expect(decodeFunctionData({ abi: erc20Abi, data: calls[0]!.data })).toEqual({
      functionName: "approve",
      args: [SETTLER, 100_000_000n],
    });
    const q = quote();
    expect(decodeOpen(calls[1]!)).toEqual({
      functionName: "open",
      args: [{ fillDeadline: q.fillDeadline, orderDataType: orderDataTypeHash, orderData: q.settlement!.orderData }],
    });
  });

  it("only opens when the allowance covers the input, and approves the maximum when asked", () => {
    expect(openCalls({ quote: quote(), deployment, owner: USER, allowance: 100_000_000n })).toHaveLength(1);
    const [approve] = openCalls({
      quote: quote(),
      deployment,
      owner: USER,
      allowance: 0n,
      approve: "unlimited",
      acknowledgeUnlimitedApproval: true,
    });
    expect(decodeFunctionData({ abi: erc20Abi, data: approve!.data }).args).toEqual([SETTLER, maxUint256]);
  });

  it("sends the native coin with open, and approves nothing, when the input is the native coin", () => {
    const native = quote({ inputToken: zeroAddress, outputToken: zeroAddress, inputAmount: 10n ** 18n });
    const calls = openCalls({ quote: native, deployment, owner: USER, allowance: 0n });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ to: SETTLER, value: 10n ** 18n });
  });

  it.each<[string, () => QuoteForCalls, Deployment, string]>([
    [
      "a quote without orderData",
      () => ({ ...quote(), settlement: { ...quote().settlement!, orderData: null } }),
      deployment,
      "NO_ORDER_DATA",
    ],
    [
      "a route the data does not list",
      () => quote({ outputToken: zeroAddress }),
      deployment,
      "ROUTE_NOT_IN_DEPLOYMENT",
    ],
    [
      "another FullSettler than the data's",
      () => ({ ...quote(), settlement: { ...quote().settlement!, fullSettler: OTHER_SETTLER } }),
      deployment,
      "SETTLER_MISMATCH",
    ],
    [
      "orderData for another amount",
      () => ({ ...quote(), inputAmount: "200000000" }),
      deployment,
      "ORDER_DATA_MISMATCH",
    ],
    [
      "an orderData that is not FullOrderParams",
      () => ({ ...quote(), settlement: { ...quote().settlement!, orderData: "0x1234" } }),
      deployment,
      "ORDER_DATA_MISMATCH",
    ],
    ["an amount below the route's limit", () => quote({ inputAmount: 999_999n }), deployment, "AMOUNT_OUTSIDE_LIMITS"],
    [
      "data whose addresses are written at deploy",
      () => quote(),
      parseDeployment({
        ...deployment,
        chains: deployment.chains.map((chain) => ({
          ...chain,
          fullSettler: null,
          tokens: chain.tokens.map((t) => ({ ...t, address: null })),
        })),
      }),
      "ADDRESSES_UNKNOWN",
    ],
  ])("refuses %s", (_what, makeQuote, data, code) => {
    const attempt = () => openCalls({ quote: makeQuote(), deployment: data, owner: USER, allowance: 0n });
    expect(attempt).toThrow(OpenCallsError);
    try {
      attempt();
    } catch (error) {
      expect((error as OpenCallsError).code).toBe(code);
    }
  });
});

describe("who gets paid, under which nonce, until when", () => {
  const refusal = (attempt: () => unknown): OpenCallsError => {
    try {
      attempt();
    } catch (error) {
      expect(error).toBeInstanceOf(OpenCallsError);
      expect(error).toBeInstanceOf(ClientError);
      return error as OpenCallsError;
    }
    throw new Error("not refused");
  };

  it("refuses orderData that pays another address than the owner, the default recipient", async () => {
    const tampered = quote({ recipient: DEAD });
    expect(refusal(() => openCalls({ quote: tampered, deployment, owner: USER, allowance: 0n })).code).toBe(
      "RECIPIENT_MISMATCH",
    );
    await expect(
      buildOpenCalls({ quote: tampered, deployment, owner: USER, readAllowance: async () => 0n }),
    ).rejects.toMatchObject({ code: "RECIPIENT_MISMATCH" });
  });

  it("pays the recipient the caller names, and refuses the owner's orderData then", () => {
    expect(
      openCalls({ quote: quote({ recipient: DEAD }), deployment, owner: USER, recipient: DEAD, allowance: 0n }),
    ).toHaveLength(2);
    expect(
      refusal(() => openCalls({ quote: quote(), deployment, owner: USER, recipient: DEAD, allowance: 0n })).code,
    ).toBe("RECIPIENT_MISMATCH");
  });

  it("refuses a recipient word with high bytes set (another payee than the padded address)", () => {
    const q = quote();
    const word = `0x${"ff".repeat(12)}${USER.slice(2).toLowerCase()}`;
    const orderData = encodeOrderData({
      nonce: 42n,
      destinationChainId: 31338n,
      inputToken: addressToBytes32(USDC),
      inputAmount: 100_000_000n,
      outputToken: addressToBytes32(DEST_USDC),
      outputAmount: 100_000_000n - 150_000n,
      recipient: word as `0x${string}`,
    });
    const highBytes = { ...q, settlement: { ...q.settlement!, orderData } };
    expect(refusal(() => openCalls({ quote: highBytes, deployment, owner: USER, allowance: 0n })).code).toBe(
      "RECIPIENT_MISMATCH",
    );
  });

  it("refuses orderData whose nonce, recipient or deadline disagree with the quote's order, or with the nonce asked for", () => {
    const q = quote();
    const order = {
      originChainId: 31337,
      destinationChainId: 31338,
      inputToken: USDC,
      inputAmount: q.inputAmount,
      outputToken: DEST_USDC,
      outputAmount: q.outputAmount,
      recipient: USER,
      nonce: "42",
      fillDeadline: FILL_DEADLINE,
    };
    const withOrder = (changes: Partial<typeof order>): QuoteForCalls => ({
      ...q,
      settlement: { ...q.settlement!, order: { ...order, ...changes } },
    });
    expect(openCalls({ quote: withOrder({}), deployment, owner: USER, nonce: 42n, allowance: 0n })).toHaveLength(2);
    const codeOf = (attempt: QuoteForCalls, extra: { nonce?: bigint } = {}) =>
      refusal(() => openCalls({ quote: attempt, deployment, owner: USER, allowance: 0n, ...extra })).code;
    expect(codeOf(withOrder({ nonce: "43" }))).toBe("NONCE_MISMATCH");
    expect(codeOf(quote(), { nonce: 7n })).toBe("NONCE_MISMATCH");
    expect(codeOf(withOrder({ recipient: DEAD }))).toBe("RECIPIENT_MISMATCH");
    expect(codeOf(withOrder({ fillDeadline: FILL_DEADLINE + 3_600 }))).toBe("DEADLINE_MISMATCH");
  });

  it("refuses a quote past its fillDeadline or its validUntil", () => {
    const q = quote();
    const at = (nowSeconds: number, validUntil?: string) =>
      openCalls({
        quote: { ...q, ...(validUntil ? { validUntil } : {}) },
        deployment,
        owner: USER,
        allowance: 0n,
        nowSeconds,
      });
    expect(refusal(() => at(FILL_DEADLINE)).code).toBe("DEADLINE_MISMATCH");
    const validUntil = new Date((FILL_DEADLINE - 600) * 1_000).toISOString();
    expect(at(FILL_DEADLINE - 900, validUntil)).toHaveLength(2);
    expect(refusal(() => at(FILL_DEADLINE - 600, validUntil)).code).toBe("DEADLINE_MISMATCH");
  });
});

describe("an unlimited approval", () => {
  it("is refused without its acknowledgement, before any allowance is read", async () => {
    // The types refuse both calls (each expectation is an error when they compile); a caller without types is refused at run time.
    // @ts-expect-error approve: "unlimited" needs acknowledgeUnlimitedApproval: true
    const attempt = () => openCalls({ quote: quote(), deployment, owner: USER, allowance: 0n, approve: "unlimited" });
    expect(attempt).toThrow(OpenCallsError);
    expect(attempt).toThrow(/acknowledgeUnlimitedApproval/);
    let read = false;
    await expect(
      // @ts-expect-error only `true` acknowledges an unlimited approval
      buildOpenCalls({
        quote: quote(),
        deployment,
        owner: USER,
        approve: "unlimited",
        acknowledgeUnlimitedApproval: false,
        readAllowance: async () => {
          read = true;
          return 0n;
        },
      }),
    ).rejects.toMatchObject({ code: "UNLIMITED_APPROVAL_NOT_ACKNOWLEDGED" });
    expect(read).toBe(false);
  });
});

describe("buildOpenCalls", () => {
  it("reads the allowance of the owner to the settler through the caller's function", async () => {
    const asked: unknown[] = [];
    const calls = await buildOpenCalls({
      quote: quote(),
      deployment,
      owner: USER.toLowerCase(),
      readAllowance: async (query) => {
        asked.push(query);
        return 0n;
      },
    });
    expect(asked).toEqual([{ chainId: 31337, token: USDC, owner: USER, spender: SETTLER }]);
    expect(calls).toHaveLength(2);
  });

  it("reads nothing for the native coin", async () => {
    const native = quote({ inputToken: zeroAddress, outputToken: zeroAddress, inputAmount: 10n ** 18n });
    const readAllowance = async () => {
      throw new Error("not expected");
    };
    expect(await buildOpenCalls({ quote: native, deployment, owner: USER, readAllowance })).toHaveLength(1);
  });
});
