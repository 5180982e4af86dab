import { SignatureKind, type TcAcceptanceEvent, type TermsAccepted } from "@platform/proto/events/v1/tc_acceptances";
import { describe, expect, it } from "vitest";
import { gateOf } from "./gate.js";
import { foldAcceptances } from "./projection.js";

const wallet = "0x52908400098527886E0F7030069857D2E4169EE7";
const other = "0x00000000000000000000000000000000000000aA";

function accepted(overrides: Partial<TermsAccepted>): TcAcceptanceEvent {
  return {
    event: {
      $case: "termsAccepted",
      value: {
        walletAddress: wallet,
        tcVersion: 1,
        message: "m",
        signature: "0x",
        signatureKind: SignatureKind.SIGNATURE_KIND_EOA,
        chainId: "31337",
        nonce: "n",
        domain: "d",
        uri: "u",
        issuedAt: "",
        expirationTime: "",
        acceptedAt: "2026-11-22T10:00:00.000Z",
        apiKeyId: "",
        ...overrides,
      },
    },
  };
}

describe("foldAcceptances", () => {
  it("keeps each wallet's last acceptance, keyed by its EIP-55 address", () => {
    const { latest, skipped } = foldAcceptances([
      accepted({ tcVersion: 1, acceptedAt: "2026-11-22T10:00:00.000Z" }),
      accepted({ walletAddress: other.toLowerCase(), tcVersion: 4 }),
      accepted({ tcVersion: 2, acceptedAt: "2026-11-22T11:00:00.000Z" }),
    ]);
    expect(skipped).toBe(0);
    expect(Object.fromEntries(latest)).toEqual({
      [wallet]: { acceptedVersion: 2, acceptedAt: "2026-11-22T11:00:00.000Z" },
      "0x00000000000000000000000000000000000000AA": { acceptedVersion: 4, acceptedAt: "2026-11-22T10:00:00.000Z" },
    });
  });

  it("skips events it cannot use", () => {
    const { latest, skipped } = foldAcceptances([
      { event: undefined },
      accepted({ walletAddress: "0x12" }),
      accepted({ tcVersion: 0 }),
    ]);
    expect(latest.size).toBe(0);
    expect(skipped).toBe(3);
  });
});

describe("gateOf", () => {
  it("opens only for an acceptance of the current version", () => {
    expect(gateOf(2, undefined)).toEqual({ allowed: false, acceptedVersion: undefined, currentTcVersion: 2 });
    expect(gateOf(2, { acceptedVersion: 2, acceptedAt: "t" })).toEqual({
      allowed: true,
      acceptedVersion: 2,
      currentTcVersion: 2,
    });
    expect(gateOf(3, { acceptedVersion: 2, acceptedAt: "t" })).toEqual({
      allowed: false,
      acceptedVersion: 2,
      currentTcVersion: 3,
    });
  });
});
