import { status } from "@grpc/grpc-js";
import { AppError } from "@platform/errors";
import { describe, expect, it } from "vitest";
import { checkMessage } from "./checkMessage.js";
import type { ParsedSiwe } from "./parseMessage.js";
import type { SiweRules } from "./siweRules.js";

const now = new Date("2026-11-22T10:00:00.000Z");
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);
const minutes = (n: number) => n * 60_000;

const rules: SiweRules = {
  domain: "127.0.0.1:8080",
  uri: "http://127.0.0.1:8080",
  scheme: undefined,
  statement: "I accept the Terms and Conditions version 3.",
  chainIds: [31337, 31338],
  currentTcVersion: 3,
  resource: "coin-tc:v3",
  document: undefined,
  nonceTtlSeconds: 600,
};

const good: ParsedSiwe = {
  scheme: undefined,
  domain: rules.domain,
  address: "0x52908400098527886E0F7030069857D2E4169EE7",
  statement: rules.statement,
  uri: rules.uri,
  chainId: 31338,
  nonce: "0123456789abcdef0123456789abcdef",
  issuedAt: at(-minutes(1)),
  expirationTime: at(minutes(4)),
  notBefore: undefined,
  resources: ["coin-tc:v3"],
  issuedAtText: at(-minutes(1)).toISOString(),
  expirationTimeText: at(minutes(4)).toISOString(),
};

function refusalOf(
  message: Partial<ParsedSiwe>,
  withRules: SiweRules = rules,
): { code: string; grpcStatus: number; extras: object } {
  try {
    checkMessage({ ...good, ...message }, withRules, now);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const { code, grpcStatus, extras } = error as AppError;
    return { code, grpcStatus, extras };
  }
  throw new Error("expected a refusal");
}

describe("checkMessage", () => {
  it("passes a message built from the rules and answers wallet, chain, nonce and version", () => {
    expect(checkMessage(good, rules, now)).toEqual({
      wallet: good.address,
      chainId: 31338,
      nonce: good.nonce,
      tcVersion: 3,
    });
  });

  it("binds domain and scheme to the configuration", () => {
    expect(refusalOf({ domain: "evil.example.com" })).toMatchObject({
      code: "SIWE_DOMAIN_MISMATCH",
      grpcStatus: status.INVALID_ARGUMENT,
    });
    expect(refusalOf({ domain: "127.0.0.1:8081" }).code).toBe("SIWE_DOMAIN_MISMATCH");
    expect(refusalOf({ scheme: "http" }).code).toBe("SIWE_DOMAIN_MISMATCH");
    const https = { ...rules, scheme: "https" };
    expect(checkMessage({ ...good, scheme: "https" }, https, now).wallet).toBe(good.address);
    expect(checkMessage(good, https, now).wallet).toBe(good.address);
    expect(refusalOf({ scheme: "http" }, https).code).toBe("SIWE_DOMAIN_MISMATCH");
  });

  it("requires the configured URI exactly", () => {
    expect(refusalOf({ uri: "http://127.0.0.1:8080/" })).toMatchObject({
      code: "SIWE_URI_MISMATCH",
      grpcStatus: status.INVALID_ARGUMENT,
    });
    expect(refusalOf({ uri: "https://127.0.0.1:8080" }).code).toBe("SIWE_URI_MISMATCH");
  });

  it("allows only the configured chain ids", () => {
    expect(refusalOf({ chainId: 1 })).toMatchObject({
      code: "SIWE_CHAIN_UNSUPPORTED",
      extras: { supportedChainIds: [31337, 31338] },
    });
    expect(checkMessage({ ...good, chainId: 31337 }, rules, now).chainId).toBe(31337);
  });

  it("requires an expiration time at most 10 minutes after issuedAt", () => {
    expect(refusalOf({ expirationTime: undefined, expirationTimeText: undefined }).code).toBe("SIWE_MALFORMED");
    expect(refusalOf({ issuedAt: at(0), expirationTime: at(0) }).code).toBe("SIWE_MALFORMED");
    expect(refusalOf({ issuedAt: at(-minutes(1)), expirationTime: at(minutes(9) + 1) }).code).toBe("SIWE_MALFORMED");
    expect(
      checkMessage({ ...good, issuedAt: at(-minutes(1)), expirationTime: at(minutes(9)) }, rules, now).tcVersion,
    ).toBe(3);
  });

  it("refuses expired messages", () => {
    expect(refusalOf({ issuedAt: at(-minutes(4)), expirationTime: at(0) })).toMatchObject({
      code: "SIWE_EXPIRED",
      grpcStatus: status.INVALID_ARGUMENT,
    });
    expect(refusalOf({ issuedAt: at(-minutes(4)), expirationTime: at(-1) }).code).toBe("SIWE_EXPIRED");
    // Still within its lifetime, but issued too long ago for the server.
    expect(refusalOf({ issuedAt: at(-minutes(5) - 1), expirationTime: at(minutes(1)) }).code).toBe("SIWE_EXPIRED");
    expect(
      checkMessage({ ...good, issuedAt: at(-minutes(5)), expirationTime: at(minutes(1)) }, rules, now).tcVersion,
    ).toBe(3);
  });

  it("refuses messages that are not valid yet", () => {
    expect(refusalOf({ issuedAt: at(minutes(5) + 1), expirationTime: at(minutes(10)) })).toMatchObject({
      code: "SIWE_NOT_YET_VALID",
      grpcStatus: status.INVALID_ARGUMENT,
    });
    expect(
      checkMessage({ ...good, issuedAt: at(minutes(5)), expirationTime: at(minutes(10)) }, rules, now).tcVersion,
    ).toBe(3);
    expect(refusalOf({ notBefore: at(1) }).code).toBe("SIWE_NOT_YET_VALID");
    expect(checkMessage({ ...good, notBefore: at(0) }, rules, now).tcVersion).toBe(3);
  });

  it("requires exactly one resource naming the current version (409)", () => {
    const mismatch = { code: "TC_VERSION_MISMATCH", grpcStatus: status.ABORTED };
    expect(refusalOf({ resources: ["coin-tc:v2"] })).toMatchObject({
      ...mismatch,
      extras: { currentTcVersion: 3, resourceVersion: 2 },
    });
    expect(refusalOf({ resources: ["coin-tc:v4"] })).toMatchObject({ ...mismatch, extras: { resourceVersion: 4 } });
    expect(refusalOf({ resources: [] })).toMatchObject({ ...mismatch, extras: { resourceVersion: null } });
    expect(refusalOf({ resources: ["coin-tc:v3", "coin-tc:v3"] })).toMatchObject(mismatch);
    expect(refusalOf({ resources: ["coin-tc:v3", "https://example.com"] })).toMatchObject(mismatch);
    expect(refusalOf({ resources: ["https://example.com/coin-tc:v3"] })).toMatchObject({
      ...mismatch,
      extras: { resourceVersion: null },
    });
    expect(refusalOf({ resources: ["coin-tc:v03"] })).toMatchObject(mismatch);
  });

  it("requires the configured statement exactly, after the version check", () => {
    expect(refusalOf({ statement: undefined }).code).toBe("SIWE_MALFORMED");
    expect(refusalOf({ statement: "I accept the Terms and Conditions version 3" }).code).toBe("SIWE_MALFORMED");
    expect(
      refusalOf({ statement: "I accept the Terms and Conditions version 2.", resources: ["coin-tc:v2"] }).code,
    ).toBe("TC_VERSION_MISMATCH");
  });
});
