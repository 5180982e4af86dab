import { redisKeySlot, sharedKeySlot } from "@platform/store";
import { describe, expect, it } from "vitest";
import { rateLimitKeys } from "./rateLimiter.js";

// Redis Cluster runs the rate-limit script only when its keys share a slot (keySlot.ts).
describe("the rate-limit script's keys", () => {
  it("share the API key's slot, and another key's budget lives elsewhere", () => {
    expect(sharedKeySlot(rateLimitKeys("ak_one"))).toBe(redisKeySlot("ak_one"));
    expect(sharedKeySlot(rateLimitKeys("ak_two"))).toBe(redisKeySlot("ak_two"));
    expect(redisKeySlot("ak_one")).not.toBe(redisKeySlot("ak_two"));
  });
});
