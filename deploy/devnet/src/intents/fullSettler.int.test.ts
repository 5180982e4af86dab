import { join } from "node:path";
import {
  addressToBytes32,
  computeOrderId,
  decodeOriginData,
  encodeFillerData,
  encodeOrderData,
  encodeOriginData,
  type FullOrderData,
  type FullOrderParams,
  NATIVE_TOKEN,
  OrderStatus,
  orderDataTypeHash,
  toFullOrderData,
} from "@platform/settler";
import { type RunningAnvil, startAnvil, tempDir } from "@platform/testing";
import {
  type Account,
  type Address,
  BaseError,
  type Chain,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  decodeErrorResult,
  defineChain,
  type Hash,
  type Hex,
  type HttpTransport,
  http,
  keccak256,
  maxUint256,
  type PublicClient,
  parseEther,
  parseEventLogs,
  parseUnits,
  type TestClient,
  type TransactionReceipt,
  type WalletClient,
  zeroHash,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type DevnetDeployment, deployDevnet } from "../deployDevnet.js";
import { devnetSettlerParams } from "../deploySteps.js";
import { fullSettlerAbi, testTokenAbi } from "../generated/index.js";

/** One side of the devnet as a test drives it: clients for each account that acts there. */
interface Side {
  chain: Chain;
  chainId: number;
  publicClient: PublicClient<HttpTransport, Chain>;
  testClient: TestClient<"anvil", HttpTransport, Chain>;
  wallet(account: Account): WalletClient<HttpTransport, Chain, Account>;
  settler: Address;
  usdc: Address;
  weth: Address;
}

const dir = tempDir("full-settler");
const anvils: RunningAnvil[] = [];
let deployment: DevnetDeployment;
let origin: Side;
let destination: Side;
// Accounts made for this run only; the devnet's own come from deployDevnet, also generated at run time.
const user = privateKeyToAccount(generatePrivateKey());
const stranger = privateKeyToAccount(generatePrivateKey());
let deployer: Account;
let oracle: Account;
let filler: Account;
let nextNonce = 1n;

const WINDOW = 600; // seconds between opening and fillDeadline in most tests: well inside the bounds
const USER_USDC = parseUnits("10000", 6);

beforeAll(async () => {
  const [originAnvil, destinationAnvil] = await Promise.all([
    startAnvil({ chainId: 31337, logFile: join(dir.path, "origin.log") }),
    startAnvil({ chainId: 31338, logFile: join(dir.path, "destination.log") }),
  ]);
  anvils.push(originAnvil, destinationAnvil);
  deployment = await deployDevnet({
    chains: [
      { name: "origin", chainId: 31337, rpcUrl: originAnvil.rpcUrl, roles: ["origin"] },
      { name: "destination", chainId: 31338, rpcUrl: destinationAnvil.rpcUrl, roles: ["destination"] },
    ],
  });
  deployer = privateKeyToAccount(deployment.accounts.deployer.privateKey);
  oracle = privateKeyToAccount(deployment.accounts.oracle.privateKey);
  filler = privateKeyToAccount(deployment.accounts.filler.privateKey);
  origin = side("origin", originAnvil.rpcUrl);
  destination = side("destination", destinationAnvil.rpcUrl);

  await origin.testClient.setBalance({ address: user.address, value: parseEther("100") });
  await origin.testClient.setBalance({ address: stranger.address, value: parseEther("1") });
  await mined(
    origin,
    origin.wallet(deployer).writeContract({
      address: origin.usdc,
      abi: testTokenAbi,
      functionName: "mint",
      args: [user.address, USER_USDC],
    }),
  );
});

afterAll(async () => {
  await Promise.all(anvils.map((anvil) => anvil.stop()));
  dir.remove();
});

// Tests move one chain's clock at a time; an order's deadline is checked on the origin when opened and
// on the destination when filled, so each test starts with both clocks at the later of the two.
beforeEach(async () => {
  const [originNow, destinationNow] = await Promise.all([now(origin), now(destination)]);
  const lagging = originNow < destinationNow ? origin : destinationNow < originNow ? destination : undefined;
  if (lagging === undefined) return;
  await lagging.testClient.setNextBlockTimestamp({ timestamp: BigInt(Math.max(originNow, destinationNow)) });
  await lagging.testClient.mine({ blocks: 1 });
});

function side(name: "origin" | "destination", rpcUrl: string): Side {
  const chainDeployment = deployment.chains[name]!;
  const chain = defineChain({
    id: chainDeployment.chainId,
    name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const transport = http(rpcUrl);
  const { fullSettler, tokens } = chainDeployment.contracts;
  if (fullSettler === undefined || tokens?.["USDC"] === undefined || tokens["WETH"] === undefined) {
    throw new Error(`${name}: deployDevnet did not deploy the settler and tokens`);
  }
  return {
    chain,
    chainId: chainDeployment.chainId,
    publicClient: createPublicClient({ chain, transport, pollingInterval: 50 }),
    testClient: createTestClient({ chain, transport, mode: "anvil" }),
    wallet: (account) => createWalletClient({ chain, transport, account, pollingInterval: 50 }),
    settler: fullSettler,
    usdc: tokens["USDC"],
    weth: tokens["WETH"],
  };
}

async function now(on: Side): Promise<number> {
  return Number((await on.publicClient.getBlock()).timestamp);
}

async function mined(on: Side, sending: Promise<Hash>): Promise<TransactionReceipt> {
  const receipt = await on.publicClient.waitForTransactionReceipt({ hash: await sending });
  expect(receipt.status).toBe("success");
  return receipt;
}

/** The custom error a call reverted with, decoded with the ABI of the contract called. */
async function revertOf(attempt: Promise<unknown>): Promise<{ errorName: string; args: readonly unknown[] }> {
  const error = await attempt.then(
    () => {
      throw new Error("expected the call to revert, but it succeeded");
    },
    (caught: unknown) => caught,
  );
  const reverted =
    error instanceof BaseError ? error.walk((cause) => cause instanceof ContractFunctionRevertedError) : null;
  if (!(reverted instanceof ContractFunctionRevertedError) || reverted.data === undefined) throw error;
  return { errorName: reverted.data.errorName, args: reverted.data.args ?? [] };
}

function usdcParams(overrides: Partial<FullOrderParams> = {}): FullOrderParams {
  return {
    nonce: nextNonce++,
    destinationChainId: BigInt(destination.chainId),
    inputToken: addressToBytes32(origin.usdc),
    inputAmount: parseUnits("100", 6),
    outputToken: addressToBytes32(destination.usdc),
    outputAmount: parseUnits("99.5", 6),
    recipient: addressToBytes32(user.address),
    ...overrides,
  };
}

function onchainOrder(params: FullOrderParams, fillDeadline: number, orderDataType: Hex = orderDataTypeHash) {
  return { fillDeadline, orderDataType, orderData: encodeOrderData(params) };
}

interface OpenedOrder {
  orderId: Hex;
  data: FullOrderData;
  receipt: TransactionReceipt;
}

/** Opens an order as `user` (approving ERC-20 input first) and returns what the contract recorded. */
async function openOrder(params: FullOrderParams, options: { fillDeadline?: number } = {}): Promise<OpenedOrder> {
  const fillDeadline = options.fillDeadline ?? (await now(origin)) + WINDOW;
  const wallet = origin.wallet(user);
  const native = params.inputToken === NATIVE_TOKEN;
  if (!native) {
    await mined(
      origin,
      wallet.writeContract({
        address: origin.usdc,
        abi: testTokenAbi,
        functionName: "approve",
        args: [origin.settler, params.inputAmount],
      }),
    );
  }
  const receipt = await mined(
    origin,
    wallet.writeContract({
      address: origin.settler,
      abi: fullSettlerAbi,
      functionName: "open",
      args: [onchainOrder(params, fillDeadline)],
      value: native ? params.inputAmount : 0n,
    }),
  );
  const data = toFullOrderData({
    params,
    user: user.address,
    originChainId: BigInt(origin.chainId),
    originSettler: origin.settler,
    destinationSettler: addressToBytes32(destination.settler),
    fillDeadline,
  });
  return { orderId: computeOrderId(data), data, receipt };
}

/** The ResolvedCrossChainOrder FullSettler must emit and return for `data`, built independently. */
function expectedResolved(data: FullOrderData) {
  return {
    user: data.user,
    originChainId: data.originChainId,
    openDeadline: 2 ** 32 - 1,
    fillDeadline: data.fillDeadline,
    orderId: computeOrderId(data),
    maxSpent: [
      {
        token: data.outputToken,
        amount: data.outputAmount,
        recipient: data.recipient,
        chainId: data.destinationChainId,
      },
    ],
    minReceived: [
      { token: data.inputToken, amount: data.inputAmount, recipient: zeroHash, chainId: data.originChainId },
    ],
    fillInstructions: [
      {
        destinationChainId: data.destinationChainId,
        destinationSettler: data.destinationSettler,
        originData: encodeOriginData(data),
      },
    ],
  };
}

async function tokenBalance(on: Side, token: Address, holder: Address): Promise<bigint> {
  return on.publicClient.readContract({ address: token, abi: testTokenAbi, functionName: "balanceOf", args: [holder] });
}

async function status(on: Side, orderId: Hex): Promise<number> {
  return on.publicClient.readContract({
    address: on.settler,
    abi: fullSettlerAbi,
    functionName: "orderStatus",
    args: [orderId],
  });
}

async function fill(order: OpenedOrder, options: { repayment?: Address; value?: bigint; gas?: bigint } = {}) {
  return destination.wallet(filler).writeContract({
    address: destination.settler,
    abi: fullSettlerAbi,
    functionName: "fill",
    args: [order.orderId, encodeOriginData(order.data), options.repayment ? encodeFillerData(options.repayment) : "0x"],
    value: options.value ?? 0n,
    ...(options.gas === undefined ? {} : { gas: options.gas }),
  });
}

/** Sends open() for `order` as `from` (the user unless given) with `value`, approving nothing first. */
function attemptOpen(order: ReturnType<typeof onchainOrder>, value = 0n, from: Account = user) {
  return origin.wallet(from).writeContract({
    address: origin.settler,
    abi: fullSettlerAbi,
    functionName: "open",
    args: [order],
    value,
  });
}

describe("FullSettler orderData helpers", () => {
  it("use the contract's orderDataType, and compute the orderId resolve() returns", async () => {
    expect(
      await origin.publicClient.readContract({
        address: origin.settler,
        abi: fullSettlerAbi,
        functionName: "ORDER_DATA_TYPE",
      }),
    ).toBe(orderDataTypeHash);

    const params = usdcParams();
    const fillDeadline = (await now(origin)) + WINDOW;
    const resolved = await origin.publicClient.readContract({
      address: origin.settler,
      abi: fullSettlerAbi,
      functionName: "resolve",
      args: [onchainOrder(params, fillDeadline)],
      account: user.address, // resolve() takes the user from msg.sender, like open()
    });
    const data = toFullOrderData({
      params,
      user: user.address,
      originChainId: BigInt(origin.chainId),
      originSettler: origin.settler,
      destinationSettler: addressToBytes32(destination.settler),
      fillDeadline,
    });
    expect(resolved.orderId).toBe(computeOrderId(data));
    expect(decodeOriginData(resolved.fillInstructions[0]!.originData)).toEqual(data);
    expect(resolved).toEqual(expectedResolved(data));
  });
});

describe("FullSettler.open", () => {
  it("gives the orderId resolve() predicted, escrows an ERC-20 and emits Open with the exact resolved order", async () => {
    const params = usdcParams();
    const fillDeadline = (await now(origin)) + WINDOW;
    const predicted = await origin.publicClient.readContract({
      address: origin.settler,
      abi: fullSettlerAbi,
      functionName: "resolve",
      args: [onchainOrder(params, fillDeadline)],
      account: user.address,
    });
    const userBefore = await tokenBalance(origin, origin.usdc, user.address);
    const settlerBefore = await tokenBalance(origin, origin.usdc, origin.settler);

    const order = await openOrder(params, { fillDeadline });

    const [open] = parseEventLogs({ abi: fullSettlerAbi, eventName: "Open", logs: order.receipt.logs });
    expect(open!.args.orderId).toBe(predicted.orderId);
    expect(open!.args.orderId).toBe(order.orderId);
    expect(open!.args.resolvedOrder).toEqual(expectedResolved(order.data));
    expect(open!.args.resolvedOrder).toEqual(predicted);
    expect(await tokenBalance(origin, origin.usdc, user.address)).toBe(userBefore - params.inputAmount);
    expect(await tokenBalance(origin, origin.usdc, origin.settler)).toBe(settlerBefore + params.inputAmount);

    expect(await status(origin, order.orderId)).toBe(OrderStatus.OPENED);
    const escrow = await origin.publicClient.readContract({
      address: origin.settler,
      abi: fullSettlerAbi,
      functionName: "escrows",
      args: [order.orderId],
    });
    expect(escrow).toEqual([user.address, fillDeadline, OrderStatus.OPENED, origin.usdc, params.inputAmount]);
    expect(
      await origin.publicClient.readContract({
        address: origin.settler,
        abi: fullSettlerAbi,
        functionName: "nonceUsed",
        args: [user.address, params.nonce],
      }),
    ).toBe(true);
    expect(
      await origin.publicClient.readContract({
        address: origin.settler,
        abi: fullSettlerAbi,
        functionName: "refundableAt",
        args: [order.orderId],
      }),
    ).toBe(BigInt(fillDeadline + devnetSettlerParams.refundGraceSeconds));
  });

  it("escrows native coin sent as value and emits Open with the exact resolved order", async () => {
    const params = usdcParams({
      inputToken: NATIVE_TOKEN,
      inputAmount: parseEther("1.5"),
      outputToken: addressToBytes32(destination.weth),
      outputAmount: parseEther("1.49"),
    });
    const settlerBefore = await origin.publicClient.getBalance({ address: origin.settler });
    const order = await openOrder(params);
    const [open] = parseEventLogs({ abi: fullSettlerAbi, eventName: "Open", logs: order.receipt.logs });
    expect(open!.args).toEqual({ orderId: order.orderId, resolvedOrder: expectedResolved(order.data) });
    expect(await origin.publicClient.getBalance({ address: origin.settler })).toBe(settlerBefore + params.inputAmount);
  });
});

describe("FullSettler.open rejects: the order's type, data, route, deadline and nonce", () => {
  it("a wrong orderDataType", async () => {
    const wrongType = `0x${"ab".repeat(32)}` as const;
    expect(await revertOf(attemptOpen(onchainOrder(usdcParams(), (await now(origin)) + WINDOW, wrongType)))).toEqual({
      errorName: "WrongOrderDataType",
      args: [orderDataTypeHash, wrongType],
    });
  });

  it("orderData that is not a FullOrderParams", async () => {
    const order = {
      fillDeadline: (await now(origin)) + WINDOW,
      orderDataType: orderDataTypeHash,
      orderData: "0x1234" as const,
    };
    expect(await revertOf(attemptOpen(order))).toEqual({ errorName: "InvalidOrderData", args: [2n] });
  });

  it("a route to a chain without a peer", async () => {
    const order = onchainOrder(usdcParams({ destinationChainId: 999n }), (await now(origin)) + WINDOW);
    expect(await revertOf(attemptOpen(order))).toEqual({ errorName: "UnsupportedRoute", args: [999n] });
    // resolve() refuses it too, so preflight learns the same before anything is sent.
    const resolving = origin.publicClient.readContract({
      address: origin.settler,
      abi: fullSettlerAbi,
      functionName: "resolve",
      args: [order],
      account: user.address,
    });
    expect((await revertOf(resolving)).errorName).toBe("UnsupportedRoute");
  });

  it("a fill deadline sooner than the minimum window", async () => {
    const fillDeadline = (await now(origin)) + devnetSettlerParams.minFillWindowSeconds - 1;
    const revert = await revertOf(attemptOpen(onchainOrder(usdcParams(), fillDeadline)));
    expect(revert.errorName).toBe("FillDeadlineOutOfBounds");
    const [deadline, earliest, latest] = revert.args as [number, bigint, bigint];
    expect(deadline).toBe(fillDeadline);
    expect(earliest).toBeGreaterThan(BigInt(fillDeadline));
    expect(latest - earliest).toBe(
      BigInt(devnetSettlerParams.maxFillBufferSeconds - devnetSettlerParams.minFillWindowSeconds),
    );
  });

  it("a fill deadline further than the maximum buffer", async () => {
    const fillDeadline = (await now(origin)) + devnetSettlerParams.maxFillBufferSeconds + 10;
    const revert = await revertOf(attemptOpen(onchainOrder(usdcParams(), fillDeadline)));
    expect(revert.errorName).toBe("FillDeadlineOutOfBounds");
    expect(revert.args[0]).toBe(fillDeadline);
    expect(revert.args[2] as bigint).toBeLessThan(BigInt(fillDeadline));
  });

  it("a nonce the user already used", async () => {
    const params = usdcParams({ inputToken: NATIVE_TOKEN, inputAmount: 1000n });
    await openOrder(params);
    const again = onchainOrder({ ...params, outputAmount: params.outputAmount + 1n }, (await now(origin)) + WINDOW);
    expect(await revertOf(attemptOpen(again, 1000n))).toEqual({
      errorName: "NonceUsed",
      args: [user.address, params.nonce],
    });
  });
});

describe("FullSettler.open rejects: value, token transfers, amounts and gasless orders", () => {
  it("less or more native coin than the input amount, and any with an ERC-20 input", async () => {
    const deadline = (await now(origin)) + WINDOW;
    const native = onchainOrder(usdcParams({ inputToken: NATIVE_TOKEN, inputAmount: 1000n }), deadline);
    expect(await revertOf(attemptOpen(native, 999n))).toEqual({
      errorName: "InsufficientValue",
      args: [1000n, 999n],
    });
    expect(await revertOf(attemptOpen(native, 1001n))).toEqual({ errorName: "ExcessValue", args: [1000n, 1001n] });
    expect(await revertOf(attemptOpen(onchainOrder(usdcParams(), deadline), 1n))).toEqual({
      errorName: "ExcessValue",
      args: [0n, 1n],
    });
  });

  it("an ERC-20 input without enough allowance, carrying the token's own reason", async () => {
    await mined(
      origin,
      origin.wallet(user).writeContract({
        address: origin.usdc,
        abi: testTokenAbi,
        functionName: "approve",
        args: [origin.settler, 5n],
      }),
    );
    const params = usdcParams();
    const revert = await revertOf(attemptOpen(onchainOrder(params, (await now(origin)) + WINDOW)));
    expect(revert.errorName).toBe("TokenTransferFailed");
    expect(revert.args[0]).toBe(origin.usdc);
    expect(decodeErrorResult({ abi: testTokenAbi, data: revert.args[1] as Hex })).toMatchObject({
      errorName: "ERC20InsufficientAllowance",
      args: [origin.settler, 5n, params.inputAmount],
    });
  });

  it("an ERC-20 input beyond the user's balance", async () => {
    await mined(
      origin,
      origin.wallet(stranger).writeContract({
        address: origin.usdc,
        abi: testTokenAbi,
        functionName: "approve",
        args: [origin.settler, maxUint256],
      }),
    );
    const revert = await revertOf(attemptOpen(onchainOrder(usdcParams(), (await now(origin)) + WINDOW), 0n, stranger));
    expect(decodeErrorResult({ abi: testTokenAbi, data: revert.args[1] as Hex }).errorName).toBe(
      "ERC20InsufficientBalance",
    );
  });

  it("zero amounts, a zero recipient and tokens that are not EVM addresses", async () => {
    const deadline = (await now(origin)) + WINDOW;
    expect(await revertOf(attemptOpen(onchainOrder(usdcParams({ inputAmount: 0n }), deadline)))).toEqual({
      errorName: "ZeroAmount",
      args: [],
    });
    expect(await revertOf(attemptOpen(onchainOrder(usdcParams({ recipient: zeroHash }), deadline)))).toEqual({
      errorName: "ZeroRecipient",
      args: [],
    });
    const notAnAddress = `0x01${"00".repeat(31)}` as const;
    expect(await revertOf(attemptOpen(onchainOrder(usdcParams({ outputToken: notAnAddress }), deadline)))).toEqual({
      errorName: "NotAnEvmAddress",
      args: [notAnAddress],
    });
  });

  it("gasless orders, which it does not offer", async () => {
    const gasless = {
      originSettler: origin.settler,
      user: user.address,
      nonce: 1n,
      originChainId: BigInt(origin.chainId),
      openDeadline: 0,
      fillDeadline: 0,
      orderDataType: orderDataTypeHash,
      orderData: "0x" as const,
    };
    const attempt = origin.wallet(user).writeContract({
      address: origin.settler,
      abi: fullSettlerAbi,
      functionName: "openFor",
      args: [gasless, "0x", "0x"],
    });
    expect(await revertOf(attempt)).toEqual({ errorName: "NotSupported", args: [] });
  });
});

describe("FullSettler.fill", () => {
  it("before the deadline pays the recipient from the filler and emits Filled; a second fill reverts", async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const repayment = privateKeyToAccount(generatePrivateKey()).address;
    const order = await openOrder(usdcParams({ recipient: addressToBytes32(recipient) }));
    const fillerBefore = await tokenBalance(destination, destination.usdc, filler.address);
    expect(await status(destination, order.orderId)).toBe(OrderStatus.UNKNOWN);

    const receipt = await mined(destination, fill(order, { repayment }));

    const [filled] = parseEventLogs({ abi: fullSettlerAbi, eventName: "Filled", logs: receipt.logs });
    expect(filled!.args).toEqual({
      orderId: order.orderId,
      filler: filler.address,
      originChainId: BigInt(origin.chainId),
      recipient: addressToBytes32(recipient),
      outputToken: addressToBytes32(destination.usdc),
      outputAmount: order.data.outputAmount,
      repaymentAddress: addressToBytes32(repayment),
    });
    expect(await tokenBalance(destination, destination.usdc, recipient)).toBe(order.data.outputAmount);
    expect(await tokenBalance(destination, destination.usdc, filler.address)).toBe(
      fillerBefore - order.data.outputAmount,
    );
    expect(await status(destination, order.orderId)).toBe(OrderStatus.FILLED);
    // The origin knows nothing of the fill until the oracle settles.
    expect(await status(origin, order.orderId)).toBe(OrderStatus.OPENED);

    expect(await revertOf(fill(order))).toEqual({ errorName: "AlreadyFilled", args: [order.orderId, filler.address] });
  });

  it("pays a native output from the value sent, and repays the filler itself when fillerData is empty", async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const order = await openOrder(
      usdcParams({
        outputToken: NATIVE_TOKEN,
        outputAmount: parseEther("0.25"),
        recipient: addressToBytes32(recipient),
      }),
    );
    expect(await revertOf(fill(order, { value: parseEther("0.2") }))).toEqual({
      errorName: "InsufficientValue",
      args: [parseEther("0.25"), parseEther("0.2")],
    });
    const receipt = await mined(destination, fill(order, { value: parseEther("0.25") }));
    const [filled] = parseEventLogs({ abi: fullSettlerAbi, eventName: "Filled", logs: receipt.logs });
    expect(filled!.args.repaymentAddress).toBe(addressToBytes32(filler.address));
    expect(await destination.publicClient.getBalance({ address: recipient })).toBe(parseEther("0.25"));
  });

  it("refuses originData that does not hash to the orderId, or is not a FullOrderData", async () => {
    const order = await openOrder(usdcParams());
    const tampered = { ...order, data: { ...order.data, outputAmount: 1n } };
    expect(await revertOf(fill({ ...tampered, orderId: order.orderId }))).toEqual({
      errorName: "OrderIdMismatch",
      args: [order.orderId, computeOrderId(tampered.data)],
    });
    // An id chosen to match arbitrary bytes gets past the hash check, but not the layout check.
    const garbage = "0x1234" as const;
    const attempt = destination.wallet(filler).writeContract({
      address: destination.settler,
      abi: fullSettlerAbi,
      functionName: "fill",
      args: [keccak256(garbage), garbage, "0x"],
    });
    expect(await revertOf(attempt)).toEqual({ errorName: "InvalidOrderData", args: [2n] });
  });

  it("is in time at the deadline itself and late one second after, by the destination's clock", async () => {
    const late = await openOrder(usdcParams());
    await destination.testClient.setNextBlockTimestamp({ timestamp: BigInt(late.data.fillDeadline + 1) });
    await destination.testClient.mine({ blocks: 1 });
    const revert = await revertOf(fill(late));
    expect(revert.errorName).toBe("FillDeadlinePassed");
    expect(revert.args[0]).toBe(late.data.fillDeadline);
    expect(await status(destination, late.orderId)).toBe(OrderStatus.UNKNOWN);

    // Opened now (origin synced forward); mined exactly at its deadline on the destination. An explicit
    // gas limit skips estimation, so the transaction itself runs in that block.
    const [originNow, destinationNow] = await Promise.all([now(origin), now(destination)]);
    await origin.testClient.setNextBlockTimestamp({ timestamp: BigInt(Math.max(originNow, destinationNow) + 1) });
    await origin.testClient.mine({ blocks: 1 });
    const onTime = await openOrder(usdcParams());
    await destination.testClient.setNextBlockTimestamp({ timestamp: BigInt(onTime.data.fillDeadline) });
    const receipt = await mined(destination, fill(onTime, { gas: 300_000n }));
    expect((await destination.publicClient.getBlock({ blockNumber: receipt.blockNumber })).timestamp).toBe(
      BigInt(onTime.data.fillDeadline),
    );
    expect(await status(destination, onTime.orderId)).toBe(OrderStatus.FILLED);
  });
});

describe("FullSettler.settle and refund", () => {
  it("settle is for the oracle only; it pays the filler, emits Settled, and blocks refund and a second settle", async () => {
    const repayment = privateKeyToAccount(generatePrivateKey()).address;
    const order = await openOrder(usdcParams());
    await mined(destination, fill(order, { repayment }));

    const settle = (as: Account) =>
      origin.wallet(as).writeContract({
        address: origin.settler,
        abi: fullSettlerAbi,
        functionName: "settle",
        args: [order.orderId, repayment],
      });
    expect(await revertOf(settle(user))).toEqual({ errorName: "NotOracle", args: [user.address] });
    expect(await revertOf(settle(filler))).toEqual({ errorName: "NotOracle", args: [filler.address] });

    const settlerBefore = await tokenBalance(origin, origin.usdc, origin.settler);
    const receipt = await mined(origin, settle(oracle));
    const [settled] = parseEventLogs({ abi: fullSettlerAbi, eventName: "Settled", logs: receipt.logs });
    expect(settled!.args).toEqual({
      orderId: order.orderId,
      filler: repayment,
      inputToken: addressToBytes32(origin.usdc),
      inputAmount: order.data.inputAmount,
    });
    expect(await tokenBalance(origin, origin.usdc, repayment)).toBe(order.data.inputAmount);
    expect(await tokenBalance(origin, origin.usdc, origin.settler)).toBe(settlerBefore - order.data.inputAmount);
    expect(await status(origin, order.orderId)).toBe(OrderStatus.SETTLED);

    expect(await revertOf(settle(oracle))).toEqual({
      errorName: "OrderNotOpen",
      args: [order.orderId, OrderStatus.SETTLED],
    });
    // Even once the refund time has come, a settled order stays settled.
    await origin.testClient.setNextBlockTimestamp({
      timestamp: BigInt(order.data.fillDeadline + devnetSettlerParams.refundGraceSeconds + 1),
    });
    await origin.testClient.mine({ blocks: 1 });
    const refunding = origin.wallet(stranger).writeContract({
      address: origin.settler,
      abi: fullSettlerAbi,
      functionName: "refund",
      args: [order.orderId],
    });
    expect(await revertOf(refunding)).toEqual({
      errorName: "OrderNotOpen",
      args: [order.orderId, OrderStatus.SETTLED],
    });
  });

  it("refund waits for fillDeadline + REFUND_GRACE, then anyone can return the escrow to the user", async () => {
    const params = usdcParams({ inputToken: NATIVE_TOKEN, inputAmount: parseEther("2") });
    const order = await openOrder(params);
    const refundableAt = order.data.fillDeadline + devnetSettlerParams.refundGraceSeconds;
    const refund = (gas?: bigint) =>
      origin.wallet(stranger).writeContract({
        address: origin.settler,
        abi: fullSettlerAbi,
        functionName: "refund",
        args: [order.orderId],
        ...(gas === undefined ? {} : { gas }),
      });

    expect(await revertOf(refund())).toEqual({
      errorName: "NotRefundableYet",
      args: [order.orderId, BigInt(refundableAt)],
    });
    // Past the deadline but inside the grace: still too early, the fill may yet be attested.
    await origin.testClient.setNextBlockTimestamp({ timestamp: BigInt(order.data.fillDeadline + 1) });
    await origin.testClient.mine({ blocks: 1 });
    expect((await revertOf(refund())).errorName).toBe("NotRefundableYet");
    // One second before refundableAt, mined in that very block: reverts.
    await origin.testClient.setNextBlockTimestamp({ timestamp: BigInt(refundableAt - 1) });
    const early = await origin.publicClient.waitForTransactionReceipt({ hash: await refund(200_000n) });
    expect(early.status).toBe("reverted");
    expect((await origin.publicClient.getBlock({ blockNumber: early.blockNumber })).timestamp).toBe(
      BigInt(refundableAt - 1),
    );
    expect(await status(origin, order.orderId)).toBe(OrderStatus.OPENED);

    const userBefore = await origin.publicClient.getBalance({ address: user.address });
    await origin.testClient.setNextBlockTimestamp({ timestamp: BigInt(refundableAt) });
    const receipt = await mined(origin, refund(200_000n));
    expect((await origin.publicClient.getBlock({ blockNumber: receipt.blockNumber })).timestamp).toBe(
      BigInt(refundableAt),
    );
    const [refunded] = parseEventLogs({ abi: fullSettlerAbi, eventName: "Refunded", logs: receipt.logs });
    expect(refunded!.args).toEqual({
      orderId: order.orderId,
      user: user.address,
      inputToken: NATIVE_TOKEN,
      inputAmount: params.inputAmount,
    });
    // The stranger paid the gas; the user gets the whole escrow.
    expect(await origin.publicClient.getBalance({ address: user.address })).toBe(userBefore + params.inputAmount);
    expect(await status(origin, order.orderId)).toBe(OrderStatus.REFUNDED);

    expect(await revertOf(refund())).toEqual({
      errorName: "OrderNotOpen",
      args: [order.orderId, OrderStatus.REFUNDED],
    });
    const settling = origin.wallet(oracle).writeContract({
      address: origin.settler,
      abi: fullSettlerAbi,
      functionName: "settle",
      args: [order.orderId, filler.address],
    });
    expect(await revertOf(settling)).toEqual({
      errorName: "OrderNotOpen",
      args: [order.orderId, OrderStatus.REFUNDED],
    });
  });

  it("orderStatus is UNKNOWN on both chains for an id nobody opened, and refund refuses it", async () => {
    const unknown = `0x${"42".repeat(32)}` as const;
    expect(await status(origin, unknown)).toBe(OrderStatus.UNKNOWN);
    expect(await status(destination, unknown)).toBe(OrderStatus.UNKNOWN);
    const refunding = origin.wallet(stranger).writeContract({
      address: origin.settler,
      abi: fullSettlerAbi,
      functionName: "refund",
      args: [unknown],
    });
    expect(await revertOf(refunding)).toEqual({ errorName: "OrderNotOpen", args: [unknown, OrderStatus.UNKNOWN] });
  });
});

describe("FullSettler administration", () => {
  it("lets only the owner set peers, and never a peer for its own chain", async () => {
    const setPeer = (as: Account, chainId: bigint) =>
      origin.wallet(as).writeContract({
        address: origin.settler,
        abi: fullSettlerAbi,
        functionName: "setPeer",
        args: [chainId, addressToBytes32(destination.settler)],
      });
    expect(await revertOf(setPeer(stranger, 5n))).toEqual({ errorName: "NotOwner", args: [stranger.address] });
    expect(await revertOf(setPeer(deployer, BigInt(origin.chainId)))).toEqual({
      errorName: "InvalidPeer",
      args: [BigInt(origin.chainId)],
    });
  });
});
