import { join } from "node:path";
import { configuredChainSchema, createChainClients } from "@platform/chain";
import { type RunningAnvil, startAnvil, tempDir } from "@platform/testing";
import {
  type Address,
  type Chain,
  createTestClient,
  createWalletClient,
  type Hex,
  type HttpTransport,
  hashMessage,
  http,
  keccak256,
  type PublicClient,
  parseEther,
  serializeErc6492Signature,
  stringToHex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployDevnet } from "../deployDevnet.js";
import { erc1271WalletAbi, erc6492WalletFactoryAbi } from "../generated/index.js";
import {
  counterfactualWalletSignature,
  ERC6492_MAGIC_SUFFIX,
  predictWalletAddress,
  wrapErc6492Signature,
} from "./erc6492.js";

const dir = tempDir("erc6492");
let anvil: RunningAnvil;
let publicClient: PublicClient<HttpTransport, Chain>;
let chain: Chain;
let factory: Address;
// Keys made at test time: the wallet's owner, someone else, and whoever pays for deployments.
const owner = privateKeyToAccount(generatePrivateKey());
const other = privateKeyToAccount(generatePrivateKey());
const payer = privateKeyToAccount(generatePrivateKey());
const MAGIC = "0x1626ba7e";
const INVALID = "0xffffffff";

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 31337, logFile: join(dir.path, "anvil.log") });
  const deployment = await deployDevnet({ chains: [{ name: "origin", chainId: 31337, rpcUrl: anvil.rpcUrl }] });
  factory = deployment.chains["origin"]!.contracts.walletFactory;
  // The chain exactly as the services build it from chains.json: no erc6492Verifier is declared, so
  // viem verifies with its deployless universal validator through eth_call.
  ({ publicClient, chain } = createChainClients(
    configuredChainSchema.parse({
      name: "origin",
      chainId: 31337,
      rpcUrl: anvil.rpcUrl,
      roles: ["origin"],
      blockTimeMs: 1000,
      finality: { safeDepth: 0, finalizedDepth: 0 },
      contracts: { multicall3: deployment.chains["origin"]!.contracts.multicall3, walletFactory: factory },
    }),
  ));
  expect(chain.contracts?.erc6492Verifier).toBeUndefined();
  await createTestClient({ chain, transport: http(anvil.rpcUrl), mode: "anvil" }).setBalance({
    address: payer.address,
    value: parseEther("10"),
  });
});

afterAll(async () => {
  await anvil.stop();
  dir.remove();
});

const salt = (label: string): Hex => keccak256(stringToHex(label));

async function walletAddress(ownerAddress: Address, label: string): Promise<Address> {
  return publicClient.readContract({
    address: factory,
    abi: erc6492WalletFactoryAbi,
    functionName: "getAddress",
    args: [ownerAddress, salt(label)],
  });
}

async function deployWallet(ownerAddress: Address, label: string): Promise<Address> {
  const wallet = createWalletClient({ chain, transport: http(anvil.rpcUrl), account: payer });
  const hash = await wallet.writeContract({
    address: factory,
    abi: erc6492WalletFactoryAbi,
    functionName: "deploy",
    args: [ownerAddress, salt(label)],
  });
  expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
  return walletAddress(ownerAddress, label);
}

function siweMessage(address: Address): string {
  return createSiweMessage({
    domain: "app.example",
    address,
    statement: "I accept the terms and conditions.",
    uri: "https://app.example/tc",
    version: "1",
    chainId: 31337,
    nonce: "a1b2c3d4e5f6g7h8",
    issuedAt: new Date("2026-11-01T12:00:00Z"),
    expirationTime: new Date("2026-11-01T12:10:00Z"),
    resources: ["coin-tc:v3"],
  });
}

describe("Erc6492WalletFactory", () => {
  it("predicts the CREATE2 address off-chain as the factory does, and deploys there once", async () => {
    const predicted = predictWalletAddress(factory, owner.address, salt("predict"));
    expect(await walletAddress(owner.address, "predict")).toBe(predicted);
    expect(await walletAddress(other.address, "predict")).not.toBe(predicted);
    expect(await publicClient.getCode({ address: predicted })).toBeUndefined();

    expect(await deployWallet(owner.address, "predict")).toBe(predicted);
    expect(await publicClient.readContract({ address: predicted, abi: erc1271WalletAbi, functionName: "owner" })).toBe(
      owner.address,
    );
    // A second deploy returns the same wallet instead of failing, as ERC-6492 verifiers may call it again.
    expect(await deployWallet(owner.address, "predict")).toBe(predicted);
  });
});

describe("Erc1271Wallet.isValidSignature", () => {
  it("accepts exactly the owner's signature of the hash", async () => {
    const wallet = await deployWallet(owner.address, "1271");
    const hash = hashMessage("hello");
    const check = (signature: Hex) =>
      publicClient.readContract({
        address: wallet,
        abi: erc1271WalletAbi,
        functionName: "isValidSignature",
        args: [hash, signature],
      });

    const signature = await owner.signMessage({ message: "hello" });
    expect(await check(signature)).toBe(MAGIC);
    expect(await check(await other.signMessage({ message: "hello" }))).toBe(INVALID);
    expect(await check(await owner.signMessage({ message: "another" }))).toBe(INVALID);
    expect(await check(signature.slice(0, 130) as Hex)).toBe(INVALID);

    // The same signature with a 0/1 recovery id is accepted; its malleable high-s twin is not.
    const v = Number.parseInt(signature.slice(130), 16);
    expect(await check(`${signature.slice(0, 130)}${(v - 27).toString(16).padStart(2, "0")}` as Hex)).toBe(MAGIC);
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const highS = n - BigInt(`0x${signature.slice(66, 130)}`);
    const twin =
      `${signature.slice(0, 66)}${highS.toString(16).padStart(64, "0")}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
    expect(await check(twin)).toBe(INVALID);
  });

  it("lets only its owner execute calls", async () => {
    const wallet = await deployWallet(owner.address, "execute");
    const attempt = publicClient.simulateContract({
      address: wallet,
      abi: erc1271WalletAbi,
      functionName: "execute",
      args: [other.address, 0n, "0x"],
      account: other.address,
    });
    await expect(attempt).rejects.toThrow(/NotOwner/);
    const { result } = await publicClient.simulateContract({
      address: wallet,
      abi: erc1271WalletAbi,
      functionName: "execute",
      args: [other.address, 0n, "0x"],
      account: owner.address,
    });
    expect(result).toBe("0x");
    // A failing inner call surfaces as the wallet's CallFailed (the factory has no fallback function).
    await expect(
      publicClient.simulateContract({
        address: wallet,
        abi: erc1271WalletAbi,
        functionName: "execute",
        args: [factory, 0n, "0x"],
        account: owner.address,
      }),
    ).rejects.toThrow(/CallFailed/);
  });
});

describe("ERC-6492 signatures of an undeployed wallet, verified by viem on anvil", () => {
  it("wraps as abi.encode(factory, calldata, signature) ++ magic, byte for byte as viem does", async () => {
    const signature = await owner.signMessage({ message: "hello" });
    const wrapped = counterfactualWalletSignature({ factory, owner: owner.address, salt: salt("wrap"), signature });
    expect(wrapped.endsWith(ERC6492_MAGIC_SUFFIX.slice(2))).toBe(true);
    const factoryCalldata = `0x${wrapped.slice(2 + 64 * 4, 2 + 64 * 4 + 2 * (4 + 64))}` as Hex;
    expect(wrapped).toBe(serializeErc6492Signature({ address: factory, data: factoryCalldata, signature }));
    expect(wrapped).toBe(wrapErc6492Signature({ factory, factoryCalldata, signature }));
  });

  it("verifyMessage and verifyHash accept the owner's signature and refuse another signer's", async () => {
    const address = predictWalletAddress(factory, owner.address, salt("counterfactual"));
    const sign = async (signer: typeof owner, message: string) =>
      counterfactualWalletSignature({
        factory,
        owner: owner.address,
        salt: salt("counterfactual"),
        signature: await signer.signMessage({ message }),
      });

    expect(await publicClient.verifyMessage({ address, message: "hello", signature: await sign(owner, "hello") })).toBe(
      true,
    );
    expect(
      await publicClient.verifyHash({ address, hash: hashMessage("hello"), signature: await sign(owner, "hello") }),
    ).toBe(true);
    expect(await publicClient.verifyMessage({ address, message: "hello", signature: await sign(other, "hello") })).toBe(
      false,
    );
    expect(await publicClient.verifyMessage({ address, message: "hello", signature: await sign(owner, "bye") })).toBe(
      false,
    );
    // The owner's signature does not make another owner's wallet valid.
    const someoneElses = predictWalletAddress(factory, other.address, salt("counterfactual"));
    expect(
      await publicClient.verifyMessage({
        address: someoneElses,
        message: "hello",
        signature: await sign(owner, "hello"),
      }),
    ).toBe(false);
    // Verification only simulated the deployment.
    expect(await publicClient.getCode({ address })).toBeUndefined();
  });

  it("verifySiweMessage accepts a SIWE message signed for the undeployed wallet, before and after it is deployed", async () => {
    const address = predictWalletAddress(factory, owner.address, salt("siwe"));
    const message = siweMessage(address);
    const signature = counterfactualWalletSignature({
      factory,
      owner: owner.address,
      salt: salt("siwe"),
      signature: await owner.signMessage({ message }),
    });
    const time = new Date("2026-11-01T12:05:00Z");
    expect(await publicClient.verifySiweMessage({ message, signature, domain: "app.example", time })).toBe(true);
    const forged = counterfactualWalletSignature({
      factory,
      owner: owner.address,
      salt: salt("siwe"),
      signature: await other.signMessage({ message }),
    });
    expect(await publicClient.verifySiweMessage({ message, signature: forged, domain: "app.example", time })).toBe(
      false,
    );

    await deployWallet(owner.address, "siwe");
    expect(await publicClient.verifySiweMessage({ message, signature, domain: "app.example", time })).toBe(true);
    const plain = await owner.signMessage({ message });
    expect(await publicClient.verifySiweMessage({ message, signature: plain, domain: "app.example", time })).toBe(true);
  });
});
