import { bytesToHex, concatHex, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { concatBytes } from "./hashers.js";
import { encodeBytes, encodeU16, encodeU64, ScaleDecodeError } from "./scale.js";
import { storageQueryAllows, subtensorStorageDecoders as decode, subtensorStorageKeys as keys } from "./storageItems.js";

const SUBTENSOR = "0x658faa385070e074c85bf6b568cf0555";
const hotkey: Hex = "0xd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d";

describe("SubtensorModule storage keys", () => {
  it("plain values are twox128(pallet) ‖ twox128(item)", () => {
    expect(keys.totalIssuance()).toMatch(new RegExp(`^${SUBTENSOR}[0-9a-f]{32}$`));
    expect(new Set([keys.totalIssuance(), keys.blockEmission(), keys.subnetLimit()]).size).toBe(3);
  });

  it("Identity-hashed NetUid maps append the u16 little-endian", () => {
    expect(keys.tempo(3).slice(-4)).toBe("0300");
    expect(keys.tokenSymbol(258).slice(-4)).toBe("0201");
    expect(keys.tempo(3).length).toBe(2 + 64 + 4);
    expect(keys.tempo(3).slice(0, 66)).not.toBe(keys.tokenSymbol(3).slice(0, 66));
  });

  it("Blake2_128Concat maps append blake2b-128 of the encoded key, then the key", () => {
    // blake2b-128 of Alice's public key (the System.Account vector).
    expect(keys.delegateTake(hotkey).slice(66)).toBe(`de1e86a9a8c739864cf3cc5ec2bea59f${hotkey.slice(2)}`);
    expect(keys.identityV2(hotkey).slice(66)).toBe(keys.delegateTake(hotkey).slice(66));
    expect(keys.subnetIdentityV3(1).slice(-4)).toBe("0100");
    expect(keys.subnetIdentityV3(1).length).toBe(2 + 64 + 32 + 4);
    expect(() => keys.delegateTake("0x1234")).toThrow(RangeError);
  });

  it("every key is under an allow-listed pallet; System is not", () => {
    for (const key of [keys.totalIssuance(), keys.tempo(0), keys.identityV2(hotkey)]) expect(storageQueryAllows(key)).toBe(true);
    expect(storageQueryAllows("0x26aa394eea5630e07c48ae0c9558cef7b99d880ec681799c0cf30e8886371da9")).toBe(false);
  });
});

describe("SubtensorModule storage decoders", () => {
  it("answer undefined for empty output (nothing stored)", () => {
    expect(decode.totalIssuance("0x")).toBeUndefined();
    expect(decode.identityV2("0x")).toBeUndefined();
  });

  it("decode the numeric items", () => {
    expect(decode.totalIssuance(encodeU64(21_000_000_000_000_000n))).toBe(21_000_000_000_000_000n);
    expect(decode.blockEmission(bytesToHex(encodeU64(1_000_000_000n)))).toBe(1_000_000_000n);
    expect(decode.subnetLimit(encodeU16(128))).toBe(128);
    expect(decode.tempo("0x6801")).toBe(360);
    expect(decode.delegateTake(encodeU16(11_796))).toBe(11_796);
    expect(() => decode.tempo(encodeU64(1n))).toThrow(ScaleDecodeError);
  });

  it("decode the symbol (the chain's default 𝜏 bytes) and owners", () => {
    expect(decode.tokenSymbol("0x10f09d9c8f")).toBe("\u{1D70F}");
    expect(decode.subnetOwner(hotkey)).toBe(hotkey);
    expect(() => decode.subnetOwner("0x1234")).toThrow(ScaleDecodeError);
  });

  it("decode SubnetIdentityV3 and ChainIdentityV2 field by field, in declaration order", () => {
    const subnetFields = ["Kestrel", "https://github.com/k/k", "ops@k", "https://k", "k#1", "vision", "https://k/logo.png", ""];
    expect(decode.subnetIdentityV3(concatBytes(...subnetFields.map((field) => encodeBytes(field))))).toEqual({
      subnetName: "Kestrel",
      githubRepo: "https://github.com/k/k",
      subnetContact: "ops@k",
      subnetUrl: "https://k",
      discord: "k#1",
      description: "vision",
      logoUrl: "https://k/logo.png",
      additional: "",
    });
    const chainFields = ["Granite", "https://g", "https://github.com/g", "", "g#2", "a validator", "extra"];
    expect(decode.identityV2(concatHex(chainFields.map((field) => bytesToHex(encodeBytes(field)))))).toEqual({
      name: "Granite",
      url: "https://g",
      githubRepo: "https://github.com/g",
      image: "",
      discord: "g#2",
      description: "a validator",
      additional: "extra",
    });
    // Six fields where the struct has seven: the type assumed for the key is wrong.
    expect(() => decode.identityV2(concatBytes(...chainFields.slice(0, 6).map((field) => encodeBytes(field))))).toThrow(ScaleDecodeError);
  });
});
