import { bytesToHex, hexToBytes } from "viem";
import { describe, expect, it } from "vitest";
import { blake2_128Concat, storagePrefix, twox128, twox64Concat } from "./hashers.js";
import { STORAGE_QUERY_PALLETS } from "./storageItems.js";
import { xxhash64 } from "./xxhash64.js";

const hex = (bytes: Uint8Array) => bytesToHex(bytes);

describe("xxhash64", () => {
  // Reference values from the xxHash reference implementation (python-xxhash), seeds 0 and 1.
  it.each([
    ["", "ef46db3751d8e999", "d5afba1336a3be4b"],
    ["abc", "44bc2cf5ad770999", "bea9ca8199328908"],
    // 39 bytes: one 32-byte stripe, then a 4-byte and three 1-byte tail steps.
    ["Nobody inspects the spammish repetition", "fbcea83c8a378bf1", "43f425448d954db6"],
  ])("%j", (text, seed0, seed1) => {
    const bytes = new TextEncoder().encode(text);
    expect(xxhash64(bytes, 0n).toString(16).padStart(16, "0")).toBe(seed0);
    expect(xxhash64(bytes, 1n).toString(16).padStart(16, "0")).toBe(seed1);
  });

  it("hashes several stripes and every tail length (bytes 0..99)", () => {
    const bytes = Uint8Array.from({ length: 100 }, (_, index) => index);
    expect(xxhash64(bytes, 0n).toString(16).padStart(16, "0")).toBe("6ac1e58032166597");
    expect(xxhash64(bytes, 1n).toString(16).padStart(16, "0")).toBe("3d19a3a2098a7023");
  });
});

describe("storage hashers", () => {
  it("twox128 of pallet and item names (known Substrate prefixes)", () => {
    expect(hex(twox128("System"))).toBe("0x26aa394eea5630e07c48ae0c9558cef7");
    expect(hex(storagePrefix("Timestamp", "Now"))).toBe("0xf0c365c3cf59d671eb72da0e7a4113c49f1f0515f462cdcf84e0f1d6045dfcbb");
    expect(hex(storagePrefix("Balances", "TotalIssuance"))).toBe("0xc2261276cc9d1f8598ea4b6a74b15c2f57c875e4cff74148e4628f264b974c80");
    expect(hex(storagePrefix("System", "Account"))).toBe("0x26aa394eea5630e07c48ae0c9558cef7b99d880ec681799c0cf30e8886371da9");
    // The allow-listed prefixes, as subtensor's storage_query.rs spells them out byte by byte.
    expect(STORAGE_QUERY_PALLETS.map((pallet) => hex(twox128(pallet)))).toEqual([
      "0x658faa385070e074c85bf6b568cf0555",
      "0x746cc6d1e9dbcf1d03868e492c1d836e",
      "0xc2261276cc9d1f8598ea4b6a74b15c2f",
      "0x1809d78346727a0ef58c0fa03bafa323",
      "0x3db7a24cfdc9de785974746c14a99df9",
      "0xa285cdb66e8b8524ea70b1693c7b1e05",
      "0x3d9cad2baf702e20b136f4c8900cd802",
      "0x5c0d1176a568c1f92944340dbfed9e9c",
      "0x7474449cca95dc5d0c00e71735a6d17d",
      "0xf0c365c3cf59d671eb72da0e7a4113c4",
    ]);
  });

  it("blake2_128Concat: System.Account of the well-known dev account Alice", () => {
    const alice = hexToBytes("0xd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d");
    expect(hex(blake2_128Concat(alice))).toBe("0xde1e86a9a8c739864cf3cc5ec2bea59fd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d");
  });

  it("twox64Concat: the seed-0 XXH64 little-endian, then the key", () => {
    const key = new TextEncoder().encode("abc");
    // 0x44bc2cf5ad770999 little-endian.
    expect(hex(twox64Concat(key))).toBe("0x990977adf52cbc44616263");
  });
});
