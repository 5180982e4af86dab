import {
  type Account,
  erc20Abi,
  type Hash,
  type Hex,
  maxUint256,
  parseAbi,
  parseEther,
  parseEventLogs,
  type TransactionReceipt,
} from "viem";
import { createSiweMessage } from "viem/siwe";
import type { ChainSide, IntentsApi, IntentsStack } from "./intentsStack.js";

// The e2e package reaches the contracts only through their ABIs, as a wallet or a filler would.
export const testTokenAbi = parseAbi(["function mint(address to, uint256 amount)"]);
export const fullSettlerAbi = parseAbi([
  "struct OnchainCrossChainOrder { uint32 fillDeadline; bytes32 orderDataType; bytes orderData; }",
  "function open(OnchainCrossChainOrder order) payable",
  "function fill(bytes32 orderId, bytes originData, bytes fillerData) payable",
  "function settle(bytes32 orderId, address filler)",
  "function refund(bytes32 orderId)",
  "event Open(bytes32 indexed orderId, (address user, uint256 originChainId, uint32 openDeadline, uint32 fillDeadline, bytes32 orderId, (bytes32 token, uint256 amount, bytes32 recipient, uint256 chainId)[] maxSpent, (bytes32 token, uint256 amount, bytes32 recipient, uint256 chainId)[] minReceived, (uint256 destinationChainId, bytes32 destinationSettler, bytes originData)[] fillInstructions) resolvedOrder)",
]);

/*
 * What a user, the filler and the oracle do on the chains in the intents end-to-end tests, each with
 * its own key and its own transaction, as in production.
 */

async function mined(side: ChainSide, hash: Hash): Promise<TransactionReceipt> {
  const receipt = await side.publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
  if (receipt.status !== "success") throw new Error(`transaction ${hash} on chain ${side.chainId} reverted`);
  return receipt;
}

/** Gas, USDC minted by the deployer (the test tokens' minter) and, unless told not to, an approval to the settler. */
export async function fundUser(
  stack: IntentsStack,
  user: Account,
  options: { usdc: bigint; approve?: boolean },
): Promise<void> {
  const { origin } = stack;
  await origin.testClient.setBalance({ address: user.address, value: parseEther("10") });
  if (options.usdc > 0n) {
    await mined(
      origin,
      await origin.wallet(stack.deployer).writeContract({
        address: origin.usdc,
        abi: testTokenAbi,
        functionName: "mint",
        args: [user.address, options.usdc],
      }),
    );
  }
  if (options.approve ?? true) {
    await mined(
      origin,
      await origin.wallet(user).writeContract({
        address: origin.usdc,
        abi: erc20Abi,
        functionName: "approve",
        args: [origin.settler, maxUint256],
      }),
    );
  }
}

/** Accepts the current T&C through the API with a SIWE message signed by the wallet. */
export async function acceptTerms(api: IntentsApi, user: Account): Promise<void> {
  const fields = await api.json(await api.post("/intents/v1/tc/nonce", { walletAddress: user.address }));
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
  const accepted = await api.post("/intents/v1/tc/accept", {
    message,
    signature: await user.signMessage!({ message }),
  });
  if (accepted.status !== 200) throw new Error(`T&C accept: ${accepted.status} ${await accepted.text()}`);
}

export interface OnchainOrder {
  fillDeadline: number;
  orderDataType: Hex;
  orderData: Hex;
}

export interface OpenedOrder {
  hash: Hash;
  receipt: TransactionReceipt;
  orderId: Hex;
  /** The fill instruction's data, as a filler reads it from the Open event. */
  originData: Hex;
}

/** The user's `open`, sent and mined; the order id and fill data come from the Open event. */
export async function openOrder(side: ChainSide, user: Account, order: OnchainOrder): Promise<OpenedOrder> {
  const hash = await side
    .wallet(user)
    .writeContract({ address: side.settler, abi: fullSettlerAbi, functionName: "open", args: [order] });
  const receipt = await mined(side, hash);
  const [opened] = parseEventLogs({ abi: fullSettlerAbi, eventName: "Open", logs: receipt.logs });
  return {
    hash,
    receipt,
    orderId: opened!.args.orderId,
    originData: opened!.args.resolvedOrder.fillInstructions[0]!.originData,
  };
}

/** The quote's order as the wallet sends it. */
export function orderOfQuote(quote: Record<string, any>): OnchainOrder {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  return {
    fillDeadline: quote.fillDeadline,
    orderDataType: quote.settlement.orderDataType,
    orderData: quote.settlement.orderData,
  };
}

export async function fillAsFiller(
  stack: IntentsStack,
  order: Pick<OpenedOrder, "orderId" | "originData">,
): Promise<TransactionReceipt> {
  const { destination } = stack;
  return mined(
    destination,
    await destination.wallet(stack.filler).writeContract({
      address: destination.settler,
      abi: fullSettlerAbi,
      functionName: "fill",
      args: [order.orderId, order.originData, "0x"],
    }),
  );
}

export async function settleAsOracle(stack: IntentsStack, orderId: Hex): Promise<TransactionReceipt> {
  const { origin } = stack;
  return mined(
    origin,
    await origin.wallet(stack.oracle).writeContract({
      address: origin.settler,
      abi: fullSettlerAbi,
      functionName: "settle",
      args: [orderId, stack.filler.address],
    }),
  );
}

export async function refund(side: ChainSide, account: Account, orderId: Hex): Promise<TransactionReceipt> {
  return mined(
    side,
    await side
      .wallet(account)
      .writeContract({ address: side.settler, abi: fullSettlerAbi, functionName: "refund", args: [orderId] }),
  );
}
