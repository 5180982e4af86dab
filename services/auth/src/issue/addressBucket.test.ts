import { describe, expect, it } from "vitest";
import { addressBucket } from "./addressBucket.js";

describe("addressBucket", () => {
  it("keeps an IPv4 address, and the IPv4 form of an IPv4-mapped IPv6 address", () => {
    expect(addressBucket("203.0.113.7")).toBe("203.0.113.7");
    expect(addressBucket("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressBucket("::FFFF:203.0.113.7")).toBe("203.0.113.7");
  });

  it("counts every address of one IPv6 /64 together, however it is written", () => {
    const bucket = addressBucket("2001:db8:85a3:0042:1000:8a2e:370:7334");
    expect(bucket).toBe("2001:db8:85a3:42::/64");
    for (const sameSubnet of [
      "2001:db8:85a3:42::1",
      "2001:0DB8:85A3:0042:ffff:ffff:ffff:ffff",
      "2001:db8:85a3:42::203.0.113.9",
      "2001:db8:85a3:42::1%eth0",
    ]) {
      expect(addressBucket(sameSubnet)).toBe(bucket);
    }
    expect(addressBucket("2001:db8:85a3:43::1")).not.toBe(bucket);
    expect(addressBucket("::1")).toBe("0:0:0:0::/64");
    expect(addressBucket("fe80::")).toBe("fe80:0:0:0::/64");
  });

  it("hashes anything that is not an IP address into a bounded key part", () => {
    const long = "x".repeat(10_000);
    expect(addressBucket(long)).toMatch(/^h:[0-9a-f]{32}$/);
    expect(addressBucket("not an address")).not.toBe(addressBucket("not an address either"));
    expect(addressBucket("203.0.113.256")).toMatch(/^h:/);
  });
});
