import { bytesToHex, hexToBytes } from "viem";
import { describe, expect, it } from "vitest";
import { ss58Decode, ss58Encode } from "./ss58.js";

const ALICE = hexToBytes("0xd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d");
const BOB = hexToBytes("0x8eaf04151687736326c9fea17e25fc5287613693c912909cb226aa4794f26a48");

describe("ss58", () => {
  it("encodes the well-known dev keys", () => {
    expect(ss58Encode(ALICE)).toBe("5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY");
    expect(ss58Encode(BOB)).toBe("5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty");
    expect(ss58Encode(ALICE, 0)).toBe("15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5");
  });

  it("decodes back, including the two-byte prefix form", () => {
    for (const prefix of [0, 2, 42, 63, 64, 1284, 16_383]) {
      const decoded = ss58Decode(ss58Encode(BOB, prefix));
      expect(decoded.prefix).toBe(prefix);
      expect(bytesToHex(decoded.accountId)).toBe(bytesToHex(BOB));
    }
  });

  it("refuses account ids that are not 32 bytes", () => {
    expect(() => ss58Encode(ALICE.subarray(1))).toThrow(RangeError);
  });
});
