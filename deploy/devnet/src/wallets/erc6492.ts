import { type Address, concat, encodeAbiParameters, encodeFunctionData, getContractAddress, type Hex } from "viem";
import { erc1271WalletBytecode, erc6492WalletFactoryAbi } from "../generated/index.js";

/**
 * Helpers for signing as an `Erc1271Wallet` that is not deployed yet (ERC-6492), for sign-in tests with
 * contract accounts. The wallet accepts its owner's plain ECDSA signature of the hash, so for a SIWE
 * message the inner signature is simply the owner's `signMessage`.
 */

/** ERC-6492's magic suffix, which tells a verifier the signature carries a deployment to simulate first. */
export const ERC6492_MAGIC_SUFFIX: Hex = "0x6492649264926492649264926492649264926492649264926492649264926492";

/** The CREATE2 address `Erc6492WalletFactory.deploy(owner, salt)` gives, computed off-chain. */
export function predictWalletAddress(factory: Address, owner: Address, salt: Hex): Address {
  return getContractAddress({
    opcode: "CREATE2",
    from: factory,
    salt,
    bytecode: concat([erc1271WalletBytecode, encodeAbiParameters([{ type: "address" }], [owner])]),
  });
}

/** `abi.encode(factory, factoryCalldata, innerSignature) ++ magic`, as ERC-6492 defines it. */
export function wrapErc6492Signature(options: { factory: Address; factoryCalldata: Hex; signature: Hex }): Hex {
  return concat([
    encodeAbiParameters(
      [{ type: "address" }, { type: "bytes" }, { type: "bytes" }],
      [options.factory, options.factoryCalldata, options.signature],
    ),
    ERC6492_MAGIC_SUFFIX,
  ]);
}

/** The ERC-6492 signature of the counterfactual wallet of `owner` and `salt`, from the owner's signature. */
export function counterfactualWalletSignature(options: {
  factory: Address;
  owner: Address;
  salt: Hex;
  signature: Hex;
}): Hex {
  return wrapErc6492Signature({
    factory: options.factory,
    factoryCalldata: encodeFunctionData({
      abi: erc6492WalletFactoryAbi,
      functionName: "deploy",
      args: [options.owner, options.salt],
    }),
    signature: options.signature,
  });
}
