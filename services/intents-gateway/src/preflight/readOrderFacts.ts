import { isQuotaExceeded } from "@platform/chain";
import { addressToBytes32, encodeOrderData, fullSettlerAbi, orderDataTypeHash } from "@platform/settler";
import { type Address, BaseError, erc20Abi, type Hex, HttpRequestError, TimeoutError, zeroAddress } from "viem";
import { chainUnavailable, isContractAnswer } from "../chains/chainErrors.js";
import type { IntentChain } from "../chains/intentChains.js";
import { readFillDeadlineBounds, readHead } from "../chains/readChainState.js";
import { describeRevert } from "./describeRevert.js";
import type { OrderFacts, Simulation, Unreadable } from "./orderFacts.js";
import type { ValidOrder } from "./validateOrder.js";

/** The `OnchainCrossChainOrder` the user would pass to `open` for this order. */
export function onchainOrderOf(order: ValidOrder): { fillDeadline: number; orderDataType: Hex; orderData: Hex } {
  return {
    fillDeadline: order.fillDeadline,
    orderDataType: orderDataTypeHash,
    orderData: encodeOrderData({
      nonce: order.nonce,
      destinationChainId: BigInt(order.destinationChainId),
      inputToken: addressToBytes32(order.inputToken),
      inputAmount: order.inputAmount,
      outputToken: addressToBytes32(order.outputToken),
      outputAmount: order.outputAmount,
      recipient: addressToBytes32(order.recipient),
    }),
  };
}

/**
 * Everything preflight needs from the origin chain, read at its latest block so the checks agree
 * with each other: settler bounds, the user's balances and allowance, the gas price, `open`
 * simulated from the user's address, and the order id from `resolve` called as the user. A
 * contract's refusal becomes a fact; an unreachable node a 503.
 */
export async function readOrderFacts(
  chain: IntentChain,
  settler: Address,
  user: Address,
  order: ValidOrder,
): Promise<OrderFacts> {
  const head = await readHead(chain);
  const blockNumber = head.number;
  const client = chain.client;
  const native = order.inputToken === zeroAddress;
  const onchainOrder = onchainOrderOf(order);
  const value = native ? order.inputAmount : 0n;
  const guarded = <T>(read: Promise<T>) => read.catch((error: unknown) => asUnreadable(chain.chainId, error));

  try {
    const [bounds, nativeBalance, balance, allowance, maxFeePerGas, simulation, orderId] = await Promise.all([
      readFillDeadlineBounds(chain, settler, blockNumber),
      client.getBalance({ address: user, blockNumber }),
      native
        ? undefined
        : guarded(
            client.readContract({
              address: order.inputToken,
              abi: erc20Abi,
              functionName: "balanceOf",
              args: [user],
              blockNumber,
            }),
          ),
      native
        ? undefined
        : guarded(
            client.readContract({
              address: order.inputToken,
              abi: erc20Abi,
              functionName: "allowance",
              args: [user, settler],
              blockNumber,
            }),
          ),
      readMaxFeePerGas(chain),
      simulateOpen(chain, settler, user, onchainOrder, value, blockNumber),
      client
        .readContract({
          address: settler,
          abi: fullSettlerAbi,
          functionName: "resolve",
          args: [onchainOrder],
          account: user,
          blockNumber,
        })
        .then((resolved) => resolved.orderId as Hex)
        .catch((error: unknown) => {
          if (isContractAnswer(error)) return undefined;
          throw error;
        }),
    ]);
    return {
      head,
      bounds,
      balance: native ? nativeBalance : balance!,
      ...(native ? {} : { allowance: allowance! }),
      nativeBalance,
      maxFeePerGas,
      simulation,
      ...(orderId === undefined ? {} : { orderId }),
    };
  } catch (error) {
    throw chainUnavailable(chain.chainId, error);
  }
}

function asUnreadable(chainId: number, error: unknown): Unreadable {
  if (!isContractAnswer(error)) throw chainUnavailable(chainId, error);
  const revert = describeRevert(error);
  return { problem: revert?.text ?? "the token contract did not answer (no contract at that address?)" };
}

async function readMaxFeePerGas(chain: IntentChain): Promise<bigint> {
  try {
    return (await chain.client.estimateFeesPerGas()).maxFeePerGas;
  } catch {
    // Chains without EIP-1559 fee history answer the legacy price.
    return chain.client.getGasPrice();
  }
}

/**
 * `eth_call` of `open` from the user, then its gas estimate. A revert is a fact about the order; a
 * node that cannot execute the call for another reason (insufficient funds for the value) is too,
 * unless the node itself could not be reached.
 */
async function simulateOpen(
  chain: IntentChain,
  settler: Address,
  user: Address,
  order: ReturnType<typeof onchainOrderOf>,
  value: bigint,
  blockNumber: bigint,
): Promise<Simulation> {
  const call = {
    address: settler,
    abi: fullSettlerAbi,
    functionName: "open",
    args: [order],
    account: user,
    value,
  } as const;
  try {
    await chain.client.simulateContract({ ...call, blockNumber });
  } catch (error) {
    if (isUnreachable(error)) throw error;
    const revert = describeRevert(error);
    return {
      ok: false,
      revert: revert ?? { name: "unknown", text: error instanceof BaseError ? error.shortMessage : String(error) },
    };
  }
  // The estimate runs on the pending block; it is advice for NATIVE_GAS, so a failure is not fatal.
  const gas = await chain.client.estimateContractGas(call).catch(() => undefined);
  return { ok: true, gas };
}

/** The node was not asked (quota) or did not answer: not a fact about the order. */
function isUnreachable(error: unknown): boolean {
  if (isQuotaExceeded(error)) return true;
  return (
    error instanceof BaseError &&
    error.walk((cause) => cause instanceof HttpRequestError || cause instanceof TimeoutError) !== null
  );
}
