import { status } from "@grpc/grpc-js";
import { configuredChainSchema, DEFAULT_USER_READS } from "@platform/chain";
import { AppError } from "@platform/errors";
import { freePort } from "@platform/testing";
import { HttpRequestError, RpcRequestError, serializeErc6492Signature } from "viem";
import { describe, expect, it } from "vitest";
import { contractWalletChain, isExecutionRevert } from "./contractWalletChain.js";

async function deadChain() {
  // A port nobody listens on: every request is refused at once.
  const port = await freePort();
  return contractWalletChain(
    configuredChainSchema.parse({
      name: "dead",
      chainId: 31399,
      rpcUrl: `http://127.0.0.1:${port}`,
      roles: ["origin"],
      blockTimeMs: 1_000,
      finality: { safeDepth: 0, finalizedDepth: 0 },
      rpc: { timeoutMs: 1_000, retryCount: 0, retryDelayMs: 0 },
    }),
    DEFAULT_USER_READS,
  );
}

async function failure(work: Promise<unknown>): Promise<AppError> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("contractWalletChain with its RPC away", () => {
  it("answers UNAVAILABLE, never 'no code' or 'invalid'", async () => {
    const chain = await deadChain();
    const address = "0x52908400098527886E0F7030069857D2E4169EE7";
    expect((await failure(chain.hasCode(address))).grpcStatus).toBe(status.UNAVAILABLE);
    const wrapped = serializeErc6492Signature({ address, data: "0x1234", signature: `0x${"11".repeat(65)}` });
    const error = await failure(chain.verifyHash(address, `0x${"00".repeat(32)}`, wrapped));
    expect(error.grpcStatus).toBe(status.UNAVAILABLE);
    expect(error.code).toBe("UNAVAILABLE");
  });
});

describe("isExecutionRevert", () => {
  it("tells a node's revert from a transport failure", () => {
    const revert = new RpcRequestError({
      body: {},
      url: "http://x",
      error: { code: 3, message: "execution reverted" },
    });
    const legacyRevert = new RpcRequestError({
      body: {},
      url: "http://x",
      error: { code: -32000, message: "execution reverted: nope" },
    });
    const internal = new RpcRequestError({
      body: {},
      url: "http://x",
      error: { code: -32603, message: "header not found" },
    });
    const refused = new HttpRequestError({ url: "http://x", details: "fetch failed" });
    expect(isExecutionRevert(revert)).toBe(true);
    expect(isExecutionRevert(legacyRevert)).toBe(true);
    expect(isExecutionRevert(internal)).toBe(false);
    expect(isExecutionRevert(refused)).toBe(false);
    expect(isExecutionRevert(new Error("execution reverted"))).toBe(false);
  });
});
