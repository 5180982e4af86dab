import { keccak256, stringToHex, zeroAddress } from "viem";
import { describe, expect, it } from "vitest";
import {
  addressToBytes32,
  bytes32ToAddress,
  computeOrderId,
  decodeOrderData,
  decodeOriginData,
  encodeFillerData,
  encodeOrderData,
  encodeOriginData,
  type FullOrderParams,
  OrderStatus,
  orderDataTypeHash,
  orderStatusName,
  toFullOrderData,
} from "./orderData.js";

// The on-chain equality of every helper is tested against the deployed contract in fullSettler.int.test.ts;
// these pin the encoding rules that the services rely on without a chain.
const user = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const params: FullOrderParams = {
  nonce: 7n,
  destinationChainId: 31338n,
  inputToken: addressToBytes32("0x5FbDB2315678afecb367f032d93F642f64180aa3"),
  inputAmount: 100_000_000n,
  outputToken: addressToBytes32("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"),
  outputAmount: 99_500_000n,
  recipient: addressToBytes32(user),
};

describe("FullSettler order encoding", () => {
  it("names the orderData type by the EIP-712 hash of FullOrderParams", () => {
    expect(orderDataTypeHash).toBe(
      keccak256(
        stringToHex(
          "FullOrderParams(uint256 nonce,uint256 destinationChainId,bytes32 inputToken,uint256 inputAmount,bytes32 outputToken,uint256 outputAmount,bytes32 recipient)",
        ),
      ),
    );
  });

  it("encodes orderData as seven static words and decodes it back", () => {
    const encoded = encodeOrderData(params);
    expect((encoded.length - 2) / 2).toBe(7 * 32);
    expect(decodeOrderData(encoded)).toEqual(params);
  });

  it("derives the orderId from every field of the full order", () => {
    const data = toFullOrderData({
      params,
      user,
      originChainId: 31337n,
      originSettler: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
      destinationSettler: addressToBytes32("0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0"),
      fillDeadline: 1_800_000_000,
    });
    const originData = encodeOriginData(data);
    expect((originData.length - 2) / 2).toBe(12 * 32);
    expect(decodeOriginData(originData)).toEqual(data);
    expect(computeOrderId(data)).toBe(keccak256(originData));
    expect(computeOrderId({ ...data, nonce: 8n })).not.toBe(computeOrderId(data));
    expect(computeOrderId({ ...data, originChainId: 1n })).not.toBe(computeOrderId(data));
    expect(computeOrderId({ ...data, fillDeadline: data.fillDeadline + 1 })).not.toBe(computeOrderId(data));
  });

  it("carries EVM addresses as left-padded bytes32 and refuses anything wider", () => {
    expect(addressToBytes32(user)).toBe(`0x000000000000000000000000${user.slice(2).toLowerCase()}`);
    expect(bytes32ToAddress(addressToBytes32(user))).toBe(user);
    expect(bytes32ToAddress(addressToBytes32(zeroAddress))).toBe(zeroAddress);
    expect(() => bytes32ToAddress(`0x01${"00".repeat(31)}`)).toThrow(/not a left-padded EVM address/);
    expect(encodeFillerData(user)).toBe(addressToBytes32(user));
  });

  it("names order statuses by the contract's enum values", () => {
    expect(OrderStatus).toEqual({ UNKNOWN: 0, OPENED: 1, FILLED: 2, SETTLED: 3, REFUNDED: 4 });
    expect([0, 1, 2, 3, 4].map(orderStatusName)).toEqual(["UNKNOWN", "OPENED", "FILLED", "SETTLED", "REFUNDED"]);
    expect(() => orderStatusName(5)).toThrow(/unknown FullSettler order status 5/);
  });
});
