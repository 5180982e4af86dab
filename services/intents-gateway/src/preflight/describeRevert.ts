import { erc20ErrorsAbi, fullSettlerAbi } from "@platform/settler";
import { type Abi, BaseError, ContractFunctionRevertedError, decodeErrorResult, type Hex } from "viem";

export interface RevertDescription {
  /** The custom error's name (`FillDeadlineOutOfBounds`), `Error`/`Panic`, or `unknown`. */
  name: string;
  /** Human-readable form with named arguments. */
  text: string;
}

// Errors `open` can raise: the settler's own, and the token's (ERC-6093, OpenZeppelin's) carried
// inside TokenTransferFailed's `reason`.
const errorAbi = [...fullSettlerAbi, ...erc20ErrorsAbi].filter((item) => item.type === "error") as Abi;

/** Names the revert of a simulated `open` from the error viem threw; undefined when it was not a revert. */
export function describeRevert(error: unknown): RevertDescription | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError)) return undefined;
  if (reverted.raw !== undefined) return describeRevertData(reverted.raw);
  return { name: "unknown", text: reverted.reason ?? "reverted without data" };
}

/**
 * Revert data is chosen by whoever wrote the reverting contract: a token can answer megabytes of
 * nested TokenTransferFailed, and decoding them cost the square of their size (512 KB blocked the
 * event loop for 110 s). No error `open` raises needs more than a few hundred bytes; beyond 2 KB the
 * data is only named by its size and selector, and nested reasons are decoded at most 3 deep.
 */
export const MAX_REVERT_DATA_BYTES = 2_048;
export const MAX_REVERT_NESTING = 3;

/** Decodes revert data against the settler's and the token's errors (plus `Error(string)` and `Panic`). */
export function describeRevertData(data: Hex, depth = 0): RevertDescription {
  if (data === "0x") return { name: "unknown", text: "reverted without data" };
  const bytes = (data.length - 2) / 2;
  if (bytes > MAX_REVERT_DATA_BYTES) {
    return {
      name: "unknown",
      text: `reverted with ${Math.ceil(bytes)} bytes of data (selector ${data.slice(0, 10)}), over the ${MAX_REVERT_DATA_BYTES} decoded`,
    };
  }
  try {
    const decoded = decodeErrorResult({ abi: errorAbi, data });
    const inputs = (decoded.abiItem as { inputs?: ReadonlyArray<{ name?: string; type: string }> }).inputs ?? [];
    const args = (decoded.args ?? []) as readonly unknown[];
    const parts = args.map((value, index) => {
      const input = inputs[index];
      return `${input?.name || `arg${index}`}=${render(value, input?.type, depth)}`;
    });
    return { name: decoded.errorName, text: `${decoded.errorName}(${parts.join(", ")})` };
  } catch {
    return { name: "unknown", text: `reverted with undecoded data ${data.slice(0, 10)}` };
  }
}

/** TokenTransferFailed carries the token's own revert data: decode it too so the cause is named (a few levels deep). */
function render(value: unknown, type: string | undefined, depth: number): string {
  if (type === "bytes" && typeof value === "string" && value.length >= 10) {
    return depth + 1 >= MAX_REVERT_NESTING
      ? `${value.slice(0, 10)}… (${(value.length - 2) / 2} bytes, nested too deep to decode)`
      : describeRevertData(value as Hex, depth + 1).text;
  }
  return String(value);
}
