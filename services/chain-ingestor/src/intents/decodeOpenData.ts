import { DecodeError } from "@platform/errors/base";
import { type Address, getAddress, type Hex } from "viem";

/** `ResolvedCrossChainOrder` as the Open event carries it, in viem's decoded shape. */
export interface DecodedResolvedOrder {
  user: Address;
  originChainId: bigint;
  openDeadline: number;
  fillDeadline: number;
  orderId: Hex;
  maxSpent: DecodedOutput[];
  minReceived: DecodedOutput[];
  fillInstructions: { destinationChainId: bigint; destinationSettler: Hex; originData: Hex }[];
}

export interface DecodedOutput {
  token: Hex;
  amount: bigint;
  recipient: Hex;
  chainId: bigint;
}

/** Arrays longer than this are not a FullSettler order (it emits one of each); decoding refuses them. */
const MAX_ITEMS = 64;

/**
 * Decodes the data of `Open(bytes32 indexed orderId, ResolvedCrossChainOrder resolvedOrder)` by
 * reading the ABI layout directly: the general decoder made decoding the largest part of working
 * off a backlog (bench/intents' backlog phase measures it). Every offset and length is checked against
 * the data; anything that does not fit throws, and the caller falls back to the general decoder
 * (which then reports the real problem). The tests compare it with viem on generated orders.
 */
export function decodeOpenData(data: Hex): DecodedResolvedOrder {
  const hex = data.slice(2);
  const size = hex.length / 2;
  if (hex.length % 64 !== 0) throw new DecodeError("Open data is not whole 32-byte words");
  const word = (at: number): string => {
    if (at < 0 || at + 32 > size) throw new DecodeError(`Open data: word at ${at} is outside ${size} bytes`);
    return hex.slice(at * 2, at * 2 + 64);
  };
  const uint = (at: number): bigint => BigInt(`0x${word(at)}`);
  const offset = (at: number, base: number): number => {
    const value = uint(at);
    if (value > BigInt(size)) throw new DecodeError(`Open data: offset ${value} at ${at} is outside ${size} bytes`);
    return base + Number(value);
  };
  const uint32 = (at: number): number => {
    const value = uint(at);
    if (value > 0xffffffffn) throw new DecodeError(`Open data: ${value} at ${at} is not a uint32`);
    return Number(value);
  };
  const bytes32 = (at: number): Hex => `0x${word(at)}`;
  const address = (at: number): Address => {
    const value = word(at);
    if (!value.startsWith("000000000000000000000000"))
      throw new DecodeError(`Open data: word at ${at} is not an address`);
    return getAddress(`0x${value.slice(24)}`);
  };
  const count = (at: number): number => {
    const value = uint(at);
    if (value > BigInt(MAX_ITEMS)) throw new DecodeError(`Open data: array of ${value} at ${at}`);
    return Number(value);
  };
  const outputs = (at: number): DecodedOutput[] =>
    Array.from({ length: count(at) }, (_, index) => {
      const item = at + 32 + index * 128;
      return { token: bytes32(item), amount: uint(item + 32), recipient: bytes32(item + 64), chainId: uint(item + 96) };
    });

  const order = offset(0, 0);
  const instructionsAt = offset(order + 224, order);
  const instructions = Array.from({ length: count(instructionsAt) }, (_, index) => {
    const elements = instructionsAt + 32;
    const item = offset(elements + index * 32, elements);
    const bytesAt = offset(item + 64, item);
    const length = uint(bytesAt);
    if (length > BigInt(size - bytesAt - 32))
      throw new DecodeError(`Open data: bytes of ${length} at ${bytesAt} overrun the data`);
    const start = (bytesAt + 32) * 2;
    return {
      destinationChainId: uint(item),
      destinationSettler: bytes32(item + 32),
      originData: `0x${hex.slice(start, start + Number(length) * 2)}` as Hex,
    };
  });
  return {
    user: address(order),
    originChainId: uint(order + 32),
    openDeadline: uint32(order + 64),
    fillDeadline: uint32(order + 96),
    orderId: bytes32(order + 128),
    maxSpent: outputs(offset(order + 160, order)),
    minReceived: outputs(offset(order + 192, order)),
    fillInstructions: instructions,
  };
}
