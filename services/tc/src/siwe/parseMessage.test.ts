import { SIWE_MESSAGE_FORM, SIWE_MESSAGE_MAX_LENGTH, SIWE_MESSAGE_PATTERN } from "@platform/chain";
import { AppError } from "@platform/errors";
import fc from "fast-check";
import { getAddress } from "viem";
import { createSiweMessage } from "viem/siwe";
import { describe, expect, it } from "vitest";
import { parseSiwe } from "./parseMessage.js";

const address = "0x52908400098527886E0F7030069857D2E4169EE7";
const fields: Parameters<typeof createSiweMessage>[0] = {
  address,
  chainId: 31337,
  domain: "127.0.0.1:8080",
  nonce: "0123456789abcdef0123456789abcdef",
  uri: "http://127.0.0.1:8080",
  version: "1",
  statement: "I accept the Terms and Conditions version 3.",
  issuedAt: new Date("2026-11-22T10:00:00.000Z"),
  expirationTime: new Date("2026-11-22T10:05:00.000Z"),
  resources: ["coin-tc:v3"],
};
const message = createSiweMessage(fields);

function codeOf(text: string): { code: string; detail: string } {
  try {
    parseSiwe(text);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return { code: (error as AppError).code, detail: (error as AppError).detail };
  }
  throw new Error("expected a refusal");
}

describe("parseSiwe", () => {
  it("parses a conformant message with the times as written", () => {
    expect(parseSiwe(message)).toEqual({
      scheme: undefined,
      domain: fields.domain,
      address,
      statement: fields.statement,
      uri: fields.uri,
      chainId: 31337,
      nonce: fields.nonce,
      issuedAt: fields.issuedAt,
      expirationTime: fields.expirationTime,
      notBefore: undefined,
      resources: ["coin-tc:v3"],
      issuedAtText: "2026-11-22T10:00:00.000Z",
      expirationTimeText: "2026-11-22T10:05:00.000Z",
    });
  });

  it("accepts any RFC 3339 spelling of a time and keeps it for the audit record", () => {
    const written = message
      .replace("Issued At: 2026-11-22T10:00:00.000Z", "Issued At: 2026-11-22T11:00:00+01:00")
      .replace("Expiration Time: 2026-11-22T10:05:00.000Z", "Expiration Time: 2026-11-22T10:05:00Z");
    const parsed = parseSiwe(written);
    expect(parsed.issuedAt).toEqual(fields.issuedAt);
    expect(parsed.issuedAtText).toBe("2026-11-22T11:00:00+01:00");
    expect(parsed.expirationTimeText).toBe("2026-11-22T10:05:00Z");
  });

  it("parses a scheme, a Not Before and a Request ID", () => {
    const withExtras = createSiweMessage({
      ...fields,
      scheme: "https",
      notBefore: new Date("2026-11-22T10:01:00.000Z"),
      requestId: "r-1",
    });
    expect(parseSiwe(withExtras)).toMatchObject({ scheme: "https", notBefore: new Date("2026-11-22T10:01:00.000Z") });
  });

  it.each<[string, string, RegExp]>([
    ["an empty message", "", /empty/],
    ["a huge message", message + "x".repeat(9_000), /longer than/],
    ["free text", "hello", /does not start with/],
    ["a lowercase address", message.replace(address, address.toLowerCase()), /EIP-55/],
    ["a wrongly checksummed address", message.replace(address, address.replace("E0F7", "e0F7")), /EIP-55/],
    ["a short address", message.replace(address, address.slice(0, 40)), /does not start with/],
    ["a missing nonce line", message.replace(/\nNonce: .*/, ""), /lacks Nonce/],
    ["a missing issued-at line", message.replace(/\nIssued At: .*/, ""), /lacks Issued At/],
    ["a version other than 1", message.replace("Version: 1", "Version: 2"), /version/],
    ["a trailing newline", `${message}\n`, /not in EIP-4361 form/],
    ["CRLF line ends", message.replaceAll("\n", "\r\n"), /./],
    ["a leading space", ` ${message}`, /does not start with/],
    ["an extra line", message.replace("\nVersion: 1", "\nFoo: bar\nVersion: 1"), /./],
    ["reordered lines", message.replace("Version: 1\nChain ID: 31337", "Chain ID: 31337\nVersion: 1"), /./],
    ["a chain id with a leading zero", message.replace("Chain ID: 31337", "Chain ID: 031337"), /not in EIP-4361 form/],
    [
      "a date that is not RFC 3339",
      message.replace("2026-11-22T10:05:00.000Z", "Sun, 22 Nov 2026 10:05:00 GMT"),
      /Expiration Time is not an RFC 3339/,
    ],
    ["a resource that is not a URI", message.replace("- coin-tc:v3", "- coin tc v3"), /resources/],
    ["a short nonce", message.replace(fields.nonce, "abc"), /./],
    ["a nonce with punctuation", message.replace(fields.nonce, "0123456789abcdef-0123"), /./],
  ])("refuses %s with SIWE_MALFORMED", (_, text, detail) => {
    const { code, detail: said } = codeOf(text);
    expect(code).toBe("SIWE_MALFORMED");
    expect(said).toMatch(detail);
  });
});

describe("the published form of the message (libs/chain SIWE_MESSAGE_PATTERN)", () => {
  const withChecksum = (text: string) =>
    text.replace(
      /(account:\n)(0x[0-9a-fA-F]{40})/,
      (_, head: string, hex: string) => head + getAddress(hex.toLowerCase()),
    );

  it("takes every message the pattern matches (its address checksummed): the document never promises what parseSiwe refuses", () => {
    fc.assert(
      // The form without its length lookahead (fast-check cannot read one), held to the length here.
      fc.property(
        fc
          .stringMatching(SIWE_MESSAGE_FORM)
          .filter((text) => text.length <= SIWE_MESSAGE_MAX_LENGTH)
          .map(withChecksum),
        (text) => {
          expect(SIWE_MESSAGE_PATTERN.test(text)).toBe(true);
          // Refusals of value (none here: parseSiwe judges form only) would still be fine; SIWE_MALFORMED is not.
          try {
            parseSiwe(text);
          } catch (error) {
            throw new Error(`refused ${JSON.stringify(text)}: ${(error as AppError).detail}`);
          }
        },
      ),
      { numRuns: 3_000, seed: 4361 },
    );
  });

  it("matches what createSiweMessage writes, and not the message with a field viem would not round-trip", () => {
    expect(SIWE_MESSAGE_PATTERN.test(message)).toBe(true);
    expect(
      SIWE_MESSAGE_PATTERN.test(
        createSiweMessage({
          ...fields,
          scheme: "https",
          domain: "app.example.com",
          requestId: "r-1",
          notBefore: new Date(),
        }),
      ),
    ).toBe(true);
    const tooLong = message.replace("I accept the", `I accept ${"the ".repeat(1_100)}`);
    for (const variant of [
      tooLong,
      message.replace("Chain ID: 31337", "Chain ID: 031337"),
      `${message}\n`,
      message.replace("URI: http://127.0.0.1:8080", "URI: http://x/%41"),
      message.replace("URI: http://127.0.0.1:8080", "URI: A://///"),
    ]) {
      expect(SIWE_MESSAGE_PATTERN.test(variant), variant).toBe(false);
      expect(codeOf(variant).code).toBe("SIWE_MALFORMED");
    }
  });
});
