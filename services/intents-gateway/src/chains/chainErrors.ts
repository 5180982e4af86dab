import { isQuotaExceeded } from "@platform/chain";
import { AppError, unavailable } from "@platform/errors";
import { BaseError, ContractFunctionRevertedError, ContractFunctionZeroDataError } from "viem";

/**
 * True when a read failed because of what the contract did (reverted, or there is no contract),
 * not because the node could not be reached: such a failure is an answer about the order.
 */
export function isContractAnswer(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk(
      (cause) => cause instanceof ContractFunctionRevertedError || cause instanceof ContractFunctionZeroDataError,
    ) !== null
  );
}

/** A node failure becomes a 503 naming the chain; the RPC URL and the node's message stay in the log. */
export function chainUnavailable(chainId: number, error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isQuotaExceeded(error)) {
    return unavailable(
      "UNAVAILABLE",
      `chain ${chainId} is serving too many requests right now; retry shortly`,
      { chainId },
      error,
    );
  }
  return unavailable("UNAVAILABLE", `chain ${chainId} cannot be read right now; retry shortly`, { chainId }, error);
}
