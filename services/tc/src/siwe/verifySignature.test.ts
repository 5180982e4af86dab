import { status } from "@grpc/grpc-js";
import { AppError, unavailable } from "@platform/errors";
import { SignatureKind } from "@platform/proto/events/v1/tc_acceptances";
import { type Address, getAddress, type Hex, serializeErc6492Signature } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it, vi } from "vitest";
import type { ContractWalletChain } from "./contractWalletChain.js";
import { isSignatureHex, verifySignature } from "./verifySignature.js";

const message = "a message to sign";
const signer = privateKeyToAccount(generatePrivateKey());
const other = privateKeyToAccount(generatePrivateKey());
const contractWallet: Address = getAddress("0x00000000000000000000000000000000c0ffee00");

function chain(answers: { hasCode?: boolean | Error; verifyHash?: boolean | Error } = {}) {
  const hasCode = vi.fn(async () => {
    if (answers.hasCode instanceof Error) throw answers.hasCode;
    if (answers.hasCode === undefined) throw new Error("hasCode must not be called");
    return answers.hasCode;
  });
  const verifyHash = vi.fn(async () => {
    if (answers.verifyHash instanceof Error) throw answers.verifyHash;
    if (answers.verifyHash === undefined) throw new Error("verifyHash must not be called");
    return answers.verifyHash;
  });
  return { chain: { chainId: 31337, hasCode, verifyHash } satisfies ContractWalletChain, hasCode, verifyHash };
}

const rpcDown = unavailable("UNAVAILABLE", "rpc down");

describe("verifySignature", () => {
  it("settles an EOA's signature offline", async () => {
    const { chain: offline } = chain();
    expect(await verifySignature(message, signer.address, await signer.signMessage({ message }), offline)).toBe(
      SignatureKind.SIGNATURE_KIND_EOA,
    );
  });

  it("asks the chain only when ECDSA recovery names another address", async () => {
    const signature = await other.signMessage({ message });
    const noCode = chain({ hasCode: false });
    expect(await verifySignature(message, signer.address, signature, noCode.chain)).toBeUndefined();
    expect(noCode.hasCode).toHaveBeenCalledWith(signer.address);
    expect(noCode.verifyHash).not.toHaveBeenCalled();

    const down = chain({ hasCode: rpcDown });
    const error = await verifySignature(message, signer.address, signature, down.chain).catch(
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).grpcStatus).toBe(status.UNAVAILABLE);
  });

  it("checks a deployed contract wallet with ERC-1271", async () => {
    const signature = await signer.signMessage({ message });
    const deployed = chain({ hasCode: true, verifyHash: true });
    expect(await verifySignature(message, contractWallet, signature, deployed.chain)).toBe(
      SignatureKind.SIGNATURE_KIND_ERC1271,
    );
    expect(
      await verifySignature(message, contractWallet, signature, chain({ hasCode: true, verifyHash: false }).chain),
    ).toBeUndefined();
    const down = await verifySignature(
      message,
      contractWallet,
      signature,
      chain({ hasCode: true, verifyHash: rpcDown }).chain,
    ).catch((e: unknown) => e);
    expect((down as AppError).grpcStatus).toBe(status.UNAVAILABLE);
  });

  it("checks an ERC-6492 wrapped signature of a wallet not deployed yet", async () => {
    const wrapped = serializeErc6492Signature({
      address: getAddress("0x0000000000000000000000000000000000fac702"),
      data: "0xdeadbeef",
      signature: await signer.signMessage({ message }),
    });
    const counterfactual = chain({ hasCode: false, verifyHash: true });
    expect(await verifySignature(message, contractWallet, wrapped, counterfactual.chain)).toBe(
      SignatureKind.SIGNATURE_KIND_ERC6492,
    );
    expect(counterfactual.verifyHash).toHaveBeenCalledOnce();
    expect(
      await verifySignature(message, contractWallet, wrapped, chain({ hasCode: false, verifyHash: false }).chain),
    ).toBeUndefined();
  });

  it("treats bytes that are no ECDSA signature as a contract wallet's", async () => {
    const garbage = `0x${"11".repeat(65)}` as Hex;
    expect(await verifySignature(message, signer.address, garbage, chain({ hasCode: false }).chain)).toBeUndefined();
    expect(
      await verifySignature(
        message,
        contractWallet,
        `0x${"22".repeat(120)}`,
        chain({ hasCode: true, verifyHash: true }).chain,
      ),
    ).toBe(SignatureKind.SIGNATURE_KIND_ERC1271);
  });
});

describe("isSignatureHex", () => {
  it.each([
    ["65 bytes", `0x${"ab".repeat(65)}`, true],
    ["no bytes", "0x", false],
    ["half a byte", "0xabc", false],
    ["no 0x", "ab".repeat(65), false],
    ["not hex", `0x${"zz".repeat(65)}`, false],
    ["too long", `0x${"ab".repeat(10_001)}`, false],
  ])("%s → %s", (_, value, expected) => {
    expect(isSignatureHex(value)).toBe(expected);
  });
});
