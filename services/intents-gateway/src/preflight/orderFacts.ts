import type { Hex } from "viem";
import type { ChainHead, FillDeadlineBounds } from "../chains/readChainState.js";
import type { RevertDescription } from "./describeRevert.js";

/** A read the chain answered with a refusal (a revert, no contract) rather than a value. */
export interface Unreadable {
  problem: string;
}

export type Simulation = { ok: true; gas: bigint | undefined } | { ok: false; revert: RevertDescription };

/** What the origin chain says about an order and its user, all read at one block. */
export interface OrderFacts {
  head: ChainHead;
  bounds: FillDeadlineBounds;
  /** Of the input token (the native balance for a native input). */
  balance: bigint | Unreadable;
  /** ERC-20 allowance to the settler; absent for a native input. */
  allowance?: bigint | Unreadable;
  nativeBalance: bigint;
  /** What one unit of gas may cost (EIP-1559 max fee, or the legacy gas price). */
  maxFeePerGas: bigint;
  simulation: Simulation;
  /** From `resolve` called as the user; absent when it reverts. */
  orderId?: Hex;
}

export const isUnreadable = (value: bigint | Unreadable | undefined): value is Unreadable => typeof value === "object";
