import { invalidArgument } from "@platform/errors";
import type { OrderParams } from "@platform/proto/intents/v1/intents";
import type { Address } from "viem";
import { parseAddress, parseChainId, parseUint256 } from "../validation/fields.js";

/** An order as preflight checks it: the decoded `orderData` plus the origin chain and fill deadline. */
export interface ValidOrder {
  originChainId: number;
  destinationChainId: number;
  inputToken: Address;
  inputAmount: bigint;
  outputToken: Address;
  outputAmount: bigint;
  recipient: Address;
  nonce: bigint;
  /** Unix seconds (uint32 on chain). */
  fillDeadline: number;
}

/** Checks an order's fields, each error naming `order.<field>`. */
export function validateOrder(order: OrderParams, prefix = "order"): ValidOrder {
  const name = (field: string) => `${prefix}.${field}`;
  if (!Number.isInteger(order.fillDeadline) || order.fillDeadline <= 0 || order.fillDeadline > 4_294_967_295) {
    throw invalidArgument("INVALID_PARAMETER", `${name("fillDeadline")} must be unix seconds (a positive uint32)`, {
      parameter: name("fillDeadline"),
    });
  }
  return {
    originChainId: parseChainId(order.originChainId, name("originChainId")),
    destinationChainId: parseChainId(order.destinationChainId, name("destinationChainId")),
    inputToken: parseAddress(order.inputToken, name("inputToken")),
    inputAmount: parseUint256(order.inputAmount, name("inputAmount"), { positive: true }),
    outputToken: parseAddress(order.outputToken, name("outputToken")),
    outputAmount: parseUint256(order.outputAmount, name("outputAmount"), { positive: true }),
    recipient: parseAddress(order.recipient, name("recipient")),
    nonce: parseUint256(order.nonce, name("nonce"), { positive: false }),
    fillDeadline: order.fillDeadline,
  };
}
