import { describe, expect, it } from "vitest";
import { groupedWrites } from "./groupedWrites.js";

describe("groupedWrites", () => {
  it("answers deletions, sets, then one ZREM and one ZADD per key", () => {
    const writes = groupedWrites();
    writes.zadd("z:a", 1, "m1");
    writes.set("k1", "v1");
    writes.zrem("z:a", "m0");
    writes.del("k2");
    writes.set("k3", Buffer.from([1, 2]));
    writes.zadd("z:b", 5, "m5");
    writes.zadd("z:a", 2, "m2");
    writes.del("k4");
    expect(writes.ops()).toEqual([
      { op: "del", key: "k2" },
      { op: "del", key: "k4" },
      { op: "set", key: "k1", value: "v1" },
      { op: "set", key: "k3", value: Buffer.from([1, 2]) },
      { op: "zrem", key: "z:a", members: ["m0"] },
      { op: "zadd", key: "z:a", entries: [1, "m1", 2, "m2"] },
      { op: "zadd", key: "z:b", entries: [5, "m5"] },
    ]);
  });

  it("answers nothing when nothing was written", () => {
    expect(groupedWrites().ops()).toEqual([]);
  });

  it("refuses a key written twice, whose grouped outcome would depend on the order", () => {
    const writes = groupedWrites();
    writes.set("k", "v");
    expect(() => writes.del("k")).toThrow(/written twice/);
    expect(() => writes.set("k", "w")).toThrow(/written twice/);
  });
});
