import { describe, expect, it } from "vitest";
import { statusOf } from "./getStatus.js";

const wallet = "0x52908400098527886E0F7030069857D2E4169EE7" as const;

describe("statusOf", () => {
  it("is not accepted when the wallet never accepted", () => {
    expect(statusOf(wallet, 2, undefined)).toEqual({
      walletAddress: wallet,
      currentTcVersion: 2,
      accepted: false,
      acceptedVersion: undefined,
      acceptedAt: undefined,
    });
  });

  it("is accepted only for the current version", () => {
    const acceptance = { acceptedVersion: 2, acceptedAt: "2026-11-22T00:00:00.000Z" };
    expect(statusOf(wallet, 2, acceptance).accepted).toBe(true);
    expect(statusOf(wallet, 3, acceptance)).toMatchObject({ accepted: false, acceptedVersion: 2, currentTcVersion: 3 });
  });
});
