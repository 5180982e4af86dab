import { invalidArgument } from "@platform/errors";
import { hexWordPattern } from "@platform/http";
import type { OrderParams } from "@platform/proto/intents/v1/intents";
import { decodeOrderData, orderDataTypeHash } from "@platform/settler";
import { getAddress, type Hex } from "viem";

/**
 * Reads the `OnchainCrossChainOrder` a wallet would pass to `FullSettler.open` into the decoded
 * order the intents service checks, with libs/settler's codec (the one the services and the
 * devnet's contract tests use).
 */

/** `FullSettler.ORDER_DATA_TYPE()`. */
export const ORDER_DATA_TYPE: Hex = orderDataTypeHash;

/**
 * orderData as the intents service can take it: seven words, the bytes32 token and recipient words
 * left-padded EVM addresses (the contract reverts NotAnEvmAddress otherwise), the destination chain
 * id a positive number below 2^53 (the service's chain ids) and the amounts not zero.
 */
const ADDRESS_WORD = "0{24}[0-9a-fA-F]{40}";
const AMOUNT_WORD = hexWordPattern({ bits: 256, nonZero: true });
export const ORDER_DATA_PATTERN = new RegExp(
  `^0x${hexWordPattern({ bits: 256, nonZero: false })}${hexWordPattern({ bits: 53, nonZero: true })}${ADDRESS_WORD}${AMOUNT_WORD}${ADDRESS_WORD}${AMOUNT_WORD}${ADDRESS_WORD}$`,
);

export interface OnchainOrder {
  originChainId: number;
  fillDeadline: number;
  orderDataType: string;
  orderData: string;
}

export function decodeOnchainOrder(order: OnchainOrder): OrderParams {
  if (order.orderDataType.toLowerCase() !== ORDER_DATA_TYPE) {
    throw invalidArgument(
      "UNSUPPORTED_ORDER_DATA_TYPE",
      `order.orderDataType must be the FullSettler's ${ORDER_DATA_TYPE}`,
      {
        parameter: "order.orderDataType",
        supportedOrderDataTypes: [ORDER_DATA_TYPE],
      },
    );
  }
  // Seven static words, exactly as the contract requires (it reverts InvalidOrderData otherwise).
  if (!/^0x[0-9a-fA-F]{448}$/.test(order.orderData)) {
    throw invalidArgument(
      "INVALID_REQUEST",
      "body field 'order.orderData' must be abi.encode(FullOrderParams): 224 bytes of 0x-prefixed hex",
      { parameter: "order.orderData" },
    );
  }
  const params = decodeOrderData(order.orderData as Hex);
  return {
    originChainId: String(order.originChainId),
    destinationChainId: String(params.destinationChainId),
    inputToken: wordToAddress(params.inputToken, "inputToken"),
    inputAmount: String(params.inputAmount),
    outputToken: wordToAddress(params.outputToken, "outputToken"),
    outputAmount: String(params.outputAmount),
    recipient: wordToAddress(params.recipient, "recipient"),
    nonce: String(params.nonce),
    fillDeadline: order.fillDeadline,
  };
}

/** ERC-7683 carries EVM addresses left-padded in bytes32; anything else cannot be opened (NotAnEvmAddress). */
function wordToAddress(word: Hex, field: string): string {
  if (!/^0x0{24}[0-9a-fA-F]{40}$/.test(word)) {
    throw invalidArgument(
      "INVALID_REQUEST",
      `body field 'order.orderData' holds a ${field} that is not a left-padded EVM address`,
      { parameter: "order.orderData" },
    );
  }
  return getAddress(`0x${word.slice(26)}`);
}
