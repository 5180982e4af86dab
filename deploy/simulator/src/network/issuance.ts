import { subtensorStateAbi } from "@platform/devnet";
import { encodeU64, precompileAddresses, subtensorStorageDecoders, subtensorStorageKeys } from "@platform/subtensor";
import { bytesToHex, type Hash } from "viem";
import type { NetworkContext } from "./context.js";

const ADMIN_GAS = 1_500_000n;

/** `TotalIssuance` now, read as the ingestion reads it: through StorageQuery (0x…0807). */
export async function readTotalIssuance(ctx: Pick<NetworkContext, "publicClient">): Promise<bigint | undefined> {
  const { data } = await ctx.publicClient.call({ to: precompileAddresses.storageQuery, data: subtensorStorageKeys.totalIssuance() });
  return subtensorStorageDecoders.totalIssuance(data ?? "0x");
}

/**
 * Mints into `TotalIssuance` the TAO a step emitted, as the chain's coinbase does each block. The
 * value is read before sending, so the caller must not run two steps at once (it does not).
 */
export async function addToTotalIssuance(ctx: NetworkContext, mintedRao: bigint): Promise<Hash | undefined> {
  if (mintedRao === 0n) return undefined;
  const current = await readTotalIssuance(ctx);
  // The deploy seeds it; a chain without it is one this simulator did not set up.
  if (current === undefined) throw new Error("TotalIssuance is not stored on this chain: was it deployed with deployDevnet?");
  return ctx.simulator.writeContract({
    address: ctx.state,
    abi: subtensorStateAbi,
    functionName: "setRawStorage",
    args: [[subtensorStorageKeys.totalIssuance()], [bytesToHex(encodeU64(current + mintedRao))]],
    gas: ADMIN_GAS,
  });
}
