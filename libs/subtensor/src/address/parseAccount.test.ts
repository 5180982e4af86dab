import { describe, expect, it } from "vitest";
import { InvalidAddressError } from "./errors.js";
import { accountKind, checkAccountAddress, parseAccount, tryParseAccount } from "./parseAccount.js";

const ALICE_PUBLIC_KEY = "0xd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d";
const ALICE_SS58 = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";
// Reference values computed independently with Python's hashlib.blake2b (digest_size=32 over b"evm:" + h160).
const ALITH_H160 = "0xf24ff3a9cf04c71dbc94d0b566f7a27b94566cac";
const ALITH_MAPPED = "0xa02a00e549cb104f710d3fe6f2f83e91524d2a40c4ed831658a120883077f9a9";
const ALITH_MAPPED_SS58 = "5Fghzk1AJt88PeFEzuRfXzbPchiBbsVGTTXcdx599VdZzkTA";

function reasonOf(input: string): string {
  try {
    parseAccount(input);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidAddressError);
    expect((error as InvalidAddressError).code).toBe("INVALID_ADDRESS");
    return (error as InvalidAddressError).reason;
  }
  throw new Error(`${input} parsed`);
}

describe("parseAccount", () => {
  it("reads an SS58 address into the public key", () => {
    expect(parseAccount(ALICE_SS58)).toEqual({ ss58: ALICE_SS58, publicKey: ALICE_PUBLIC_KEY, evmH160: undefined });
  });

  it("answers a repeated SS58 address alike, and still refuses a near miss of one it has seen", () => {
    const first = parseAccount(ALICE_SS58);
    expect(parseAccount(ALICE_SS58)).toEqual(first);
    expect(() => checkAccountAddress(ALICE_SS58)).not.toThrow();
    expect(reasonOf("5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQZ")).toBe("bad SS58 checksum");
    expect(reasonOf("5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQZ")).toBe("bad SS58 checksum");
  });

  it("reads a 32-byte public key in any case into its SS58", () => {
    expect(parseAccount(ALICE_PUBLIC_KEY.toUpperCase().replace("0X", "0x"))).toEqual({
      ss58: ALICE_SS58,
      publicKey: ALICE_PUBLIC_KEY,
      evmH160: undefined,
    });
  });

  it("maps an EVM address with HashedAddressMapping and keeps it checksummed", () => {
    const account = parseAccount(ALITH_H160);
    expect(account).toEqual({
      ss58: ALITH_MAPPED_SS58,
      publicKey: ALITH_MAPPED,
      evmH160: "0xf24FF3a9CF04c71Dbc94D0b566f7A27B94566cac",
    });
    expect(accountKind(account)).toBe("evm_mapped");
    expect(accountKind(parseAccount(ALICE_SS58))).toBe("substrate");
    expect(parseAccount("0xf24FF3a9CF04c71Dbc94D0b566f7A27B94566cac")).toEqual(account);
  });

  it("takes an EVM address in one case throughout, lower or upper, as claiming no checksum", () => {
    const account = parseAccount(ALITH_H160);
    expect(parseAccount("0xf24ff3a9cf04c71dbc94d0b566f7a27b94566cac")).toEqual(account);
    expect(parseAccount("0xF24FF3A9CF04C71DBC94D0B566F7A27B94566CAC")).toEqual(account);
    expect(() => checkAccountAddress("0xF24FF3A9CF04C71DBC94D0B566F7A27B94566CAC")).not.toThrow();
  });

  it("refuses malformed input with a reason", () => {
    expect(reasonOf("")).toBe("empty");
    expect(reasonOf("0x1234")).toMatch(/32-byte public key or a 20-byte/);
    expect(reasonOf(`${ALICE_PUBLIC_KEY}00`)).toMatch(/32-byte public key or a 20-byte/);
    expect(reasonOf("0xf24FF3a9CF04c71Dbc94D0b566f7A27B94566CAC")).toBe("bad EIP-55 checksum");
    expect(reasonOf("5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQZ")).toBe("bad SS58 checksum");
    expect(reasonOf("5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKut0")).toBe("not base58");
    expect(reasonOf("5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNeh")).toMatch(/length/);
    // Alice on Polkadot (prefix 0): a valid SS58, but of another network.
    expect(reasonOf("15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5")).toMatch(/prefix 0/);
  });

  it("keeps the mapping of a recent EVM address: the same frozen answer, without hashing again", () => {
    const first = parseAccount("0xf24FF3a9CF04c71Dbc94D0b566f7A27B94566cac");
    expect(parseAccount("0xf24FF3a9CF04c71Dbc94D0b566f7A27B94566cac")).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first).toEqual({
      ss58: ALITH_MAPPED_SS58,
      publicKey: ALITH_MAPPED,
      evmH160: "0xf24FF3a9CF04c71Dbc94D0b566f7A27B94566cac",
    });
  });

  it("checkAccountAddress takes exactly what parseAccount takes, with the same reasons", () => {
    for (const valid of [
      ALICE_SS58,
      ALICE_PUBLIC_KEY,
      ALICE_PUBLIC_KEY.toUpperCase().replace("0X", "0x"),
      "0xf24FF3a9CF04c71Dbc94D0b566f7A27B94566cac",
      "0xf24ff3a9cf04c71dbc94d0b566f7a27b94566cac",
    ]) {
      expect(() => checkAccountAddress(valid), valid).not.toThrow();
    }
    for (const invalid of [
      "",
      "0x1234",
      "0xf24FF3a9CF04c71Dbc94D0b566f7A27B94566CAC",
      "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQZ",
      "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5",
    ]) {
      let reason: string | undefined;
      try {
        checkAccountAddress(invalid);
      } catch (error) {
        reason = (error as InvalidAddressError).reason;
      }
      expect(reason, invalid).toBe(reasonOf(invalid));
    }
  });

  it("tryParseAccount answers undefined instead of throwing", () => {
    expect(tryParseAccount("nope")).toBeUndefined();
    expect(tryParseAccount(ALICE_SS58)?.publicKey).toBe(ALICE_PUBLIC_KEY);
  });
});
