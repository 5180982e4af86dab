import { describe, expect, it } from "vitest";
import { keysForEveryPartition } from "./partitionKeys.js";

describe("keysForEveryPartition", () => {
  it("finds one key per partition, the same on every call", () => {
    const keys = keysForEveryPartition("block-seen:", 6);
    expect(keys).toHaveLength(6);
    expect(new Set(keys).size).toBe(6);
    expect(keys.every((key) => key.startsWith("block-seen:"))).toBe(true);
    expect(keysForEveryPartition("block-seen:", 6)).toEqual(keys);
    expect(keysForEveryPartition("x", 1)).toEqual(["x0"]);
    expect(() => keysForEveryPartition("x", 0)).toThrow(/partitions/);
  });
});
