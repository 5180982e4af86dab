/**
 * Builders for ABI items that keep their literal types, so viem infers names, arguments and results
 * from the ABIs built with them exactly as from a hand-written `as const` JSON ABI.
 */

export interface AbiParam {
  readonly name: string;
  readonly type: string;
  readonly components?: readonly AbiParam[];
}

export function viewFunction<
  const N extends string,
  const I extends readonly AbiParam[],
  const O extends readonly AbiParam[],
>(name: N, inputs: I, outputs: O) {
  return { type: "function", name, stateMutability: "view", inputs, outputs } as const;
}

export function writeFunction<
  const N extends string,
  const M extends "payable" | "nonpayable",
  const I extends readonly AbiParam[],
>(name: N, stateMutability: M, inputs: I) {
  return { type: "function", name, stateMutability, inputs, outputs: [] } as const;
}

/** One unnamed result, the shape of every single-value precompile getter. */
export function returns<const T extends string>(type: T) {
  return [{ name: "", type }] as const;
}

export const netuidU16 = { name: "netuid", type: "uint16" } as const;
export const uidU16 = { name: "uid", type: "uint16" } as const;
/** Staking V2 takes the netuid as uint256, unlike every other precompile. */
export const netuidU256 = { name: "netuid", type: "uint256" } as const;
export const hotkeyArg = { name: "hotkey", type: "bytes32" } as const;
export const coldkeyArg = { name: "coldkey", type: "bytes32" } as const;
