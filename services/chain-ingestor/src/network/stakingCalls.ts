import { precompileAddresses, stakingV2Abi } from "@platform/subtensor";
import { decodeFunctionData, type Hex } from "viem";

/**
 * Staking V2 writes the ingestor decodes from transaction input, beyond the ones in
 * `@platform/subtensor`'s ABI (which lists only what the platform itself sends). Signatures from the
 * Rust `#[precompile::public]` strings (research data-api §2.4.4); selectors are checked in the test.
 */
const stakingV2WritesAbi = [
  ...stakingV2Abi.filter((item) => item.stateMutability !== "view"),
  write("moveStake", [b32("origin_hotkey"), b32("destination_hotkey"), u256("origin_netuid"), u256("destination_netuid"), u256("amount")]),
  write("transferStake", [b32("destination_coldkey"), b32("hotkey"), u256("origin_netuid"), u256("destination_netuid"), u256("amount")]),
  write("burnAlpha", [b32("hotkey"), u256("amount"), u256("netuid")]),
  write("addStakeLimit", [b32("hotkey"), u256("amount_rao"), u256("limit_price"), bool("allow_partial"), u256("netuid")]),
  write("removeStakeLimit", [b32("hotkey"), u256("amount_alpha"), u256("limit_price"), bool("allow_partial"), u256("netuid")]),
  write("removeStakeFullLimit", [b32("hotkey"), u256("netuid"), u256("limit_price")]),
] as const;

const balanceTransferAbi = [write("transfer", [b32("data")], "payable")] as const;

function write<const N extends string, const I extends readonly { name: string; type: string }[]>(
  name: N,
  inputs: I,
  stateMutability: "payable" | "nonpayable" = "payable",
) {
  return { type: "function", name, stateMutability, inputs, outputs: [] } as const;
}
function b32<const N extends string>(name: N) {
  return { name, type: "bytes32" } as const;
}
function u256<const N extends string>(name: N) {
  return { name, type: "uint256" } as const;
}
function bool<const N extends string>(name: N) {
  return { name, type: "bool" } as const;
}

/** What a precompile call does to stake, in the chain's own terms (rao, nano-alpha, public keys). */
export type StakeCall =
  | { kind: "addStake"; hotkey: Hex; netuid: number; amountRao: bigint }
  | { kind: "removeStake"; hotkey: Hex; netuid: number; amountNalpha?: bigint }
  | { kind: "moveStake"; hotkey: Hex; destinationHotkey: Hex; netuid: number; destinationNetuid: number; amountNalpha: bigint }
  | { kind: "transferStake"; hotkey: Hex; destinationColdkey: Hex; netuid: number; destinationNetuid: number; amountNalpha: bigint }
  | { kind: "burnAlpha"; hotkey: Hex; netuid: number; amountNalpha: bigint };

/** Decodes a Staking V2 call by selector; undefined when the input matches no known function. */
export function decodeStakingCall(input: Hex): StakeCall | undefined {
  let decoded;
  try {
    decoded = decodeFunctionData({ abi: stakingV2WritesAbi, data: input });
  } catch {
    return undefined;
  }
  const netuidOf = (value: bigint) => Number(value);
  switch (decoded.functionName) {
    case "addStake":
      return { kind: "addStake", hotkey: decoded.args[0], amountRao: decoded.args[1], netuid: netuidOf(decoded.args[2]) };
    case "addStakeLimit":
      return { kind: "addStake", hotkey: decoded.args[0], amountRao: decoded.args[1], netuid: netuidOf(decoded.args[4]) };
    case "removeStake":
      return { kind: "removeStake", hotkey: decoded.args[0], amountNalpha: decoded.args[1], netuid: netuidOf(decoded.args[2]) };
    case "removeStakeLimit":
      return { kind: "removeStake", hotkey: decoded.args[0], amountNalpha: decoded.args[1], netuid: netuidOf(decoded.args[4]) };
    case "removeStakeFull":
    case "removeStakeFullLimit":
      // The amount is whatever the position held: not in the input.
      return { kind: "removeStake", hotkey: decoded.args[0], netuid: netuidOf(decoded.args[1]) };
    case "moveStake":
      return {
        kind: "moveStake",
        hotkey: decoded.args[0],
        destinationHotkey: decoded.args[1],
        netuid: netuidOf(decoded.args[2]),
        destinationNetuid: netuidOf(decoded.args[3]),
        amountNalpha: decoded.args[4],
      };
    case "transferStake":
      return {
        kind: "transferStake",
        destinationColdkey: decoded.args[0],
        hotkey: decoded.args[1],
        netuid: netuidOf(decoded.args[2]),
        destinationNetuid: netuidOf(decoded.args[3]),
        amountNalpha: decoded.args[4],
      };
    case "burnAlpha":
      return { kind: "burnAlpha", hotkey: decoded.args[0], amountNalpha: decoded.args[1], netuid: netuidOf(decoded.args[2]) };
  }
}

/** The recipient public key of a BalanceTransfer `transfer(bytes32)` call. */
export function decodeBalanceTransfer(input: Hex): Hex | undefined {
  try {
    const decoded = decodeFunctionData({ abi: balanceTransferAbi, data: input });
    return decoded.args[0];
  } catch {
    return undefined;
  }
}

export const stakingPrecompile = precompileAddresses.stakingV2.toLowerCase();
export const balanceTransferPrecompile = precompileAddresses.balanceTransfer.toLowerCase();
export { stakingV2WritesAbi, balanceTransferAbi };
