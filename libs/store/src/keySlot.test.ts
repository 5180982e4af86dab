import { describe, expect, it } from "vitest";
import { redisKeySlot, sharedKeySlot } from "./keySlot.js";

describe("redisKeySlot", () => {
  it("gives the Cluster specification's slots", () => {
    // The specification's CRC16 check value, and slots redis-cli's CLUSTER KEYSLOT gives.
    expect(redisKeySlot("123456789")).toBe(0x31c3 & 16383);
    expect(redisKeySlot("foo")).toBe(12182);
    expect(redisKeySlot("bar")).toBe(5061);
  });

  it("hashes only a non-empty first tag", () => {
    expect(redisKeySlot("a:{user1000}:following")).toBe(redisKeySlot("user1000"));
    expect(redisKeySlot("foo{}{bar}")).toBe(redisKeySlot("foo{}{bar}"));
    expect(redisKeySlot("foo{}{bar}")).not.toBe(redisKeySlot("bar"));
    expect(redisKeySlot("foo{{bar}}zap")).toBe(redisKeySlot("{bar"));
    expect(redisKeySlot("foo{bar}{zap}")).toBe(redisKeySlot("bar"));
  });

  it("names two keys in different slots", () => {
    expect(sharedKeySlot(["x:{a}:1", "y:{a}:2"])).toBe(redisKeySlot("a"));
    expect(() => sharedKeySlot(["x:{a}:1", "x:{b}:1"])).toThrow(/different slots/);
  });
});
