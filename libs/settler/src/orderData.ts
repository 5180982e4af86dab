import {
  type Address,
  decodeAbiParameters,
  encodeAbiParameters,
  getAddress,
  type Hex,
  keccak256,
  pad,
  stringToHex,
  zeroHash,
} from "viem";

/**
 * Pure helpers for FullSettler orders (deploy/devnet/contracts/intents/FullSettler.sol), for the
 * services that quote, preflight and mirror them. They mirror the contract exactly; deploy/devnet's
 * fullSettler.int.test.ts checks each against the deployed contract, so a change on one side without
 * the other fails there.
 */

/** The EIP-712 type of `orderData`; its hash is the `orderDataType` an `OnchainCrossChainOrder` must carry. */
export const FULL_ORDER_PARAMS_TYPE =
  "FullOrderParams(uint256 nonce,uint256 destinationChainId,bytes32 inputToken,uint256 inputAmount,bytes32 outputToken,uint256 outputAmount,bytes32 recipient)";

/** `FullSettler.ORDER_DATA_TYPE()`. */
export const orderDataTypeHash: Hex = keccak256(stringToHex(FULL_ORDER_PARAMS_TYPE));

/** `bytes32` token value meaning the chain's native coin (ERC-7683 convention). */
export const NATIVE_TOKEN: Hex = zeroHash;

/** What the user chooses; `abi.encode` of it is `OnchainCrossChainOrder.orderData`. */
export interface FullOrderParams {
  nonce: bigint;
  destinationChainId: bigint;
  /** Origin token as bytes32 (`addressToBytes32`); `NATIVE_TOKEN` for the native coin. */
  inputToken: Hex;
  inputAmount: bigint;
  /** Destination token as bytes32; `NATIVE_TOKEN` for the native coin. */
  outputToken: Hex;
  outputAmount: bigint;
  /** Destination recipient as bytes32. */
  recipient: Hex;
}

/** The complete order; `abi.encode` of it is the fill instruction's `originData`, its hash the `orderId`. */
export interface FullOrderData {
  user: Address;
  nonce: bigint;
  originChainId: bigint;
  originSettler: Address;
  destinationChainId: bigint;
  destinationSettler: Hex;
  inputToken: Hex;
  inputAmount: bigint;
  outputToken: Hex;
  outputAmount: bigint;
  recipient: Hex;
  fillDeadline: number;
}

const fullOrderParamsParameters = [
  {
    type: "tuple",
    components: [
      { name: "nonce", type: "uint256" },
      { name: "destinationChainId", type: "uint256" },
      { name: "inputToken", type: "bytes32" },
      { name: "inputAmount", type: "uint256" },
      { name: "outputToken", type: "bytes32" },
      { name: "outputAmount", type: "uint256" },
      { name: "recipient", type: "bytes32" },
    ],
  },
] as const;

const fullOrderDataParameters = [
  {
    type: "tuple",
    components: [
      { name: "user", type: "address" },
      { name: "nonce", type: "uint256" },
      { name: "originChainId", type: "uint256" },
      { name: "originSettler", type: "address" },
      { name: "destinationChainId", type: "uint256" },
      { name: "destinationSettler", type: "bytes32" },
      { name: "inputToken", type: "bytes32" },
      { name: "inputAmount", type: "uint256" },
      { name: "outputToken", type: "bytes32" },
      { name: "outputAmount", type: "uint256" },
      { name: "recipient", type: "bytes32" },
      { name: "fillDeadline", type: "uint32" },
    ],
  },
] as const;

/** `abi.encode(FullOrderParams)`: the `orderData` to put into `OnchainCrossChainOrder`. */
export function encodeOrderData(params: FullOrderParams): Hex {
  return encodeAbiParameters(fullOrderParamsParameters, [params]);
}

export function decodeOrderData(orderData: Hex): FullOrderParams {
  return decodeAbiParameters(fullOrderParamsParameters, orderData)[0];
}

/**
 * The `FullOrderData` that `open` will record for `params`, as the contract's `resolve` builds it:
 * the user is the sender of `open`, origin chain and settler are where it is sent, and the destination
 * settler is the origin settler's peer for the destination chain.
 */
export function toFullOrderData(options: {
  params: FullOrderParams;
  user: Address;
  originChainId: bigint;
  originSettler: Address;
  destinationSettler: Hex;
  fillDeadline: number;
}): FullOrderData {
  const { params } = options;
  return {
    user: options.user,
    nonce: params.nonce,
    originChainId: options.originChainId,
    originSettler: options.originSettler,
    destinationChainId: params.destinationChainId,
    destinationSettler: options.destinationSettler,
    inputToken: params.inputToken,
    inputAmount: params.inputAmount,
    outputToken: params.outputToken,
    outputAmount: params.outputAmount,
    recipient: params.recipient,
    fillDeadline: options.fillDeadline,
  };
}

/** `abi.encode(FullOrderData)`: the `originData` a filler passes to `fill`. */
export function encodeOriginData(data: FullOrderData): Hex {
  return encodeAbiParameters(fullOrderDataParameters, [data]);
}

/** Decodes `originData` from an `Open` event's fill instruction. */
export function decodeOriginData(originData: Hex): FullOrderData {
  return decodeAbiParameters(fullOrderDataParameters, originData)[0];
}

/** `keccak256(abi.encode(FullOrderData))`, the id `open` emits and `fill` checks. */
export function computeOrderId(data: FullOrderData): Hex {
  return keccak256(encodeOriginData(data));
}

/** `fill`'s `fillerData`: where on the origin the filler wants the escrow paid. */
export function encodeFillerData(repaymentAddress: Address): Hex {
  return encodeAbiParameters([{ type: "bytes32" }], [addressToBytes32(repaymentAddress)]);
}

/** `bytes32(uint256(uint160(address)))`, how ERC-7683 carries EVM addresses. */
export function addressToBytes32(address: Address): Hex {
  return pad(getAddress(address), { size: 32 }).toLowerCase() as Hex;
}

/** The EVM address in a `bytes32`; throws if bits above the low 160 are set (not an EVM address). */
export function bytes32ToAddress(value: Hex): Address {
  if (!/^0x0{24}[0-9a-fA-F]{40}$/.test(value)) throw new Error(`${value} is not a left-padded EVM address`);
  return getAddress(`0x${value.slice(26)}`);
}

/** `FullSettler.orderStatus` values by name; the numbers are the Solidity enum's. */
export const OrderStatus = { UNKNOWN: 0, OPENED: 1, FILLED: 2, SETTLED: 3, REFUNDED: 4 } as const;
export type OrderStatusName = keyof typeof OrderStatus;

const statusNames = Object.keys(OrderStatus) as OrderStatusName[];

export function orderStatusName(value: number): OrderStatusName {
  const name = statusNames[value];
  if (name === undefined) throw new Error(`unknown FullSettler order status ${value}`);
  return name;
}
