import {
  decodeFunctionResult,
  encodeFunctionData,
  multicall3Abi,
  type Abi,
  type Address,
  type Client,
  type ContractFunctionName,
  type ContractFunctionArgs,
  type Hex,
} from "viem";
import { ForkDuringReadError } from "../follower/blockFollower.js";
import { isUnknownBlockError } from "../follower/unknownBlock.js";

/** One read of a batch: a view function of a contract, by ABI and name. */
export interface ViewCall {
  address: Address;
  abi: Abi;
  functionName: string;
  args?: readonly unknown[];
}

/** Typed constructor of a ViewCall, so arguments are checked against the ABI where it is written. */
export function viewCall<const A extends Abi, N extends ContractFunctionName<A, "view" | "pure">>(
  address: Address,
  abi: A,
  functionName: N,
  args: ContractFunctionArgs<A, "view" | "pure", N>,
): ViewCall {
  return { address, abi: abi as Abi, functionName, args: args as readonly unknown[] };
}

/**
 * A call with no ABI: the calldata as given, the return data as answered (StorageQuery 0x…0807,
 * whose input is a raw storage key and whose output is raw SCALE bytes).
 */
export interface RawCall {
  address: Address;
  data: Hex;
}

export function rawCall(address: Address, data: Hex): RawCall {
  return { address, data };
}

/** One read of a batch. */
export type BatchCall = ViewCall | RawCall;

const isRaw = (call: BatchCall): call is RawCall => "data" in call;

/** The decoded result of a ViewCall; the return data (Hex) of a RawCall. */
export type CallResult = { ok: true; value: unknown } | { ok: false };

/** Multicall3 has no code at the block (a block before its deployment): nothing can be batched there. */
export class MulticallUnavailableError extends Error {
  override readonly name = "MulticallUnavailableError";
}

/** Calls per aggregate3 request: keeps each eth_call well under a node's gas and response limits. */
const CALLS_PER_BATCH = 500;

/**
 * Runs view calls through Multicall3 `aggregate3` AT ONE BLOCK, named by its hash (EIP-1898), so
 * every value of a snapshot comes from exactly the block the follower linked, whatever the node's
 * head does meanwhile. A node that no longer knows the block answers with an error: the step is
 * read again (ForkDuringReadError). Individual calls may fail (a missing subnet) without failing
 * the batch.
 */
export async function multicallAt(client: Client, multicall3: Address, blockHash: Hex, calls: readonly BatchCall[]): Promise<CallResult[]> {
  const batches: BatchCall[][] = [];
  for (let start = 0; start < calls.length; start += CALLS_PER_BATCH) batches.push(calls.slice(start, start + CALLS_PER_BATCH));
  const answers = await Promise.all(batches.map((batch) => aggregateAt(client, multicall3, blockHash, batch)));
  return answers.flat();
}

async function aggregateAt(client: Client, multicall3: Address, blockHash: Hex, calls: readonly BatchCall[]): Promise<CallResult[]> {
  const data = encodeFunctionData({
    abi: multicall3Abi,
    functionName: "aggregate3",
    args: [
      calls.map((call) => ({
        target: call.address,
        allowFailure: true,
        callData: isRaw(call) ? call.data : encodeFunctionData({ abi: call.abi, functionName: call.functionName, args: call.args ?? [] } as never),
      })),
    ],
  });
  let raw: Hex;
  try {
    raw = (await client.request({
      method: "eth_call",
      params: [{ to: multicall3, data }, { blockHash }] as never,
    })) as Hex;
  } catch (error) {
    if (isUnknownBlockError(error)) throw new ForkDuringReadError(`block ${blockHash} is unknown to the node`, { cause: error });
    throw error;
  }
  if (raw === "0x") throw new MulticallUnavailableError(`no Multicall3 at ${multicall3} in block ${blockHash}`);
  const results = decodeFunctionResult({ abi: multicall3Abi, functionName: "aggregate3", data: raw });
  return results.map((result, index) => {
    const call = calls[index]!;
    if (!result.success) return { ok: false };
    if (isRaw(call)) return { ok: true, value: result.returnData };
    try {
      const value = decodeFunctionResult({ abi: call.abi, functionName: call.functionName, data: result.returnData } as never);
      return { ok: true, value };
    } catch {
      // A contract that answers with the wrong shape (or an EOA: empty data) counts as a failed call.
      return { ok: false };
    }
  });
}
