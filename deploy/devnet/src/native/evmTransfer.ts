import type { ApiPromise } from "@polkadot/api";
import type { SubmittableExtrinsic } from "@polkadot/api/types";
import { type Address, type Hex, keccak256, parseTransaction } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { connectNativeChain, nativeTx, readNativeInteger } from "./nativeChain.js";

export interface EvmTransferRequest {
  privateKey: Hex;
  to: Address;
  valueWei: bigint;
  /** The sender's EVM nonce (its mapped account's System nonce); 0 for a key that never sent. */
  nonce: number;
}

export interface EvmTransferCall {
  /** The unsigned `ethereum.transact` extrinsic carrying the signed transaction. */
  tx: SubmittableExtrinsic<"promise">;
  /** The Ethereum transaction hash, what `Ethereum.Executed` reports. */
  ethereumHash: Hex;
  from: Address;
}

const TRANSFER_GAS = 21_000n;

/**
 * A plain EIP-1559 value transfer signed by an EVM key, wrapped for `ethereum.transact`. Fees follow
 * the chain's `BaseFee` (twice it as the cap, no tip), so it is valid in the next block too.
 */
export async function evmTransferCall(api: ApiPromise, request: EvmTransferRequest): Promise<EvmTransferCall> {
  const account = privateKeyToAccount(request.privateKey);
  const chainId = await evmChainId(api);
  const maxFeePerGas = 2n * (await readNativeInteger(api, "baseFee", "baseFeePerGas"));
  const fields = {
    chainId,
    nonce: request.nonce,
    maxPriorityFeePerGas: 0n,
    maxFeePerGas,
    gas: TRANSFER_GAS,
    to: request.to,
    value: request.valueWei,
  };
  const serialized = await account.signTransaction({ type: "eip1559", ...fields });
  const { r, s, yParity } = parseTransaction(serialized);
  const tx = nativeTx(
    api,
    "ethereum",
    "transact",
  )({
    EIP1559: {
      chainId,
      nonce: fields.nonce,
      maxPriorityFeePerGas: fields.maxPriorityFeePerGas,
      maxFeePerGas,
      gasLimit: fields.gas,
      action: { Call: fields.to },
      value: fields.value,
      input: "0x",
      accessList: [],
      oddYParity: yParity === 1,
      r,
      s,
    },
  });
  return { tx, ethereumHash: keccak256(serialized), from: account.address };
}

/**
 * The chain id transactions must carry, from the runtime API: raonet's `EVMChainId` storage is unset
 * (reads 0) while the runtime checks transactions against 945.
 */
export async function evmChainId(api: ApiPromise): Promise<number> {
  const call = api.call["ethereumRuntimeRPCApi"]?.["chainId"];
  if (call === undefined) throw new Error("this runtime has no EthereumRuntimeRPCApi.chain_id");
  return Number((await call()).toString());
}

/** `evmChainId` of the node at `rpcUrl`, over a connection of its own. */
export async function nativeEvmChainId(rpcUrl: string): Promise<number> {
  const chain = await connectNativeChain(rpcUrl);
  try {
    return await evmChainId(chain.api);
  } finally {
    await chain.close();
  }
}
