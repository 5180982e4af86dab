import { bytesToHex } from "viem";
import { describe, expect, it } from "vitest";
import { encodeBytes, encodeCompact, encodeU128, encodeU16, encodeU64, ScaleDecodeError, scaleReader } from "./scale.js";

describe("SCALE", () => {
  // Vectors from the parity-scale-codec documentation (compact integers and little-endian ints).
  it.each([
    [0n, "0x00"],
    [1n, "0x04"],
    [42n, "0xa8"],
    [63n, "0xfc"],
    [64n, "0x0101"],
    [69n, "0x1501"],
    [16_383n, "0xfdff"],
    [16_384n, "0x02000100"],
    [65_535n, "0xfeff0300"],
    [1_073_741_823n, "0xfeffffff"],
    [1_073_741_824n, "0x0300000040"],
    [100_000_000_000_000n, "0x0b00407a10f35a"],
  ])("compact %s ⇄ %s", (value, encoded) => {
    expect(bytesToHex(encodeCompact(value))).toBe(encoded);
    const reader = scaleReader(encoded as `0x${string}`);
    expect(reader.compact()).toBe(value);
    reader.end();
  });

  it("fixed-width integers are little-endian", () => {
    expect(bytesToHex(encodeU16(42))).toBe("0x2a00");
    expect(bytesToHex(encodeU64(1_000_000_000n))).toBe("0x00ca9a3b00000000");
    expect(bytesToHex(encodeU128(2n ** 64n + 1n))).toBe("0x01000000000000000100000000000000");
    const reader = scaleReader("0x2a0000ca9a3b0000000001000000000000000100000000000000");
    expect([reader.u16(), reader.u64(), reader.u128()]).toEqual([42, 1_000_000_000n, 2n ** 64n + 1n]);
    reader.end();
  });

  it("Vec<u8> is a compact length then the bytes; UTF-8 text round-trips", () => {
    expect(bytesToHex(encodeBytes("abc"))).toBe("0x0c616263");
    const long = "x".repeat(100);
    expect(bytesToHex(encodeBytes(long)).slice(0, 6)).toBe("0x9101");
    expect(new TextDecoder().decode(scaleReader(encodeBytes("κ")).bytes())).toBe("κ");
  });

  it("refuses truncated input and trailing bytes", () => {
    expect(() => scaleReader("0x2a").u16()).toThrow(ScaleDecodeError);
    expect(() => scaleReader("0x0c6162").bytes()).toThrow(ScaleDecodeError);
    const reader = scaleReader("0x2a0000");
    reader.u16();
    expect(() => reader.end()).toThrow(/1 unread bytes/);
  });
});
