import { invalidArgument } from "@platform/errors";
import type { NotifyRequest } from "@platform/proto/intents/v1/intents";
import { getAddress, isAddress } from "viem";

export interface ValidNotification {
  userAddress: `0x${string}`;
  originChainId: string;
  txHash: `0x${string}`;
  orderId?: `0x${string}`;
  quoteId?: string;
}

const HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * Checks a notification against what the service can mirror: a known origin chain, a 32-byte
 * transaction hash and order id, a well-formed user address. The gateway validated the shapes
 * already; the chain set is this service's knowledge.
 */
export function validateNotify(request: NotifyRequest, originChainIds: ReadonlySet<string>): ValidNotification {
  if (!isAddress(request.userAddress, { strict: false })) {
    throw invalidArgument("INVALID_ADDRESS", "userAddress must be a 20-byte 0x-prefixed hex address", {
      parameter: "userAddress",
    });
  }
  if (!originChainIds.has(request.originChainId)) {
    throw invalidArgument(
      "UNSUPPORTED_CHAIN",
      `originChainId ${request.originChainId} is not an origin chain of this deployment`,
      {
        parameter: "originChainId",
        supportedChainIds: [...originChainIds].map(Number),
      },
    );
  }
  if (!HASH.test(request.txHash))
    throw invalidArgument("INVALID_PARAMETER", "txHash must be a 0x-prefixed 32-byte hex hash", {
      parameter: "txHash",
    });
  if (request.orderId !== undefined && !HASH.test(request.orderId)) {
    throw invalidArgument("INVALID_PARAMETER", "orderId must be a 0x-prefixed 32-byte hex value", {
      parameter: "orderId",
    });
  }
  return {
    userAddress: getAddress(request.userAddress),
    originChainId: request.originChainId,
    txHash: request.txHash.toLowerCase() as `0x${string}`,
    ...(request.orderId === undefined ? {} : { orderId: request.orderId.toLowerCase() as `0x${string}` }),
    ...(request.quoteId === undefined ? {} : { quoteId: request.quoteId }),
  };
}
