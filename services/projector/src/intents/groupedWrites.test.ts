import { describe, expect, it } from "vitest";
import { groupedWrites } from "./groupedWrites.js";

/** Records the commands queued on a MULTI, in order. */
function recordingMulti() {
  const queued: unknown[][] = [];
  const multi = new Proxy({}, { get: (_target, command: string) => (...args: unknown[]) => void queued.push([command, ...args]) });
  return { queued, multi: multi as Parameters<ReturnType<typeof groupedWrites>["queueOn"]>[0] };
}

describe("groupedWrites", () => {
  it("queues one DEL, one MSET, and one ZREM and ZADD per key, deletions and removals first", () => {
    const writes = groupedWrites();
    writes.zadd("z:a", 1, "m1");
    writes.set("k1", "v1");
    writes.zrem("z:a", "m0");
    writes.del("k2");
    writes.set("k3", Buffer.from([1, 2]));
    writes.zadd("z:b", 5, "m5");
    writes.zadd("z:a", 2, "m2");
    writes.del("k4");
    const { queued, multi } = recordingMulti();
    writes.queueOn(multi);
    expect(queued).toEqual([
      ["del", "k2", "k4"],
      ["mset", new Map<string, string | Buffer>([["k1", "v1"], ["k3", Buffer.from([1, 2])]])],
      ["zrem", "z:a", "m0"],
      ["zadd", "z:a", 1, "m1", 2, "m2"],
      ["zadd", "z:b", 5, "m5"],
    ]);
  });

  it("queues nothing when nothing was written", () => {
    const { queued, multi } = recordingMulti();
    groupedWrites().queueOn(multi);
    expect(queued).toEqual([]);
  });

  it("refuses a key written twice, whose grouped outcome would depend on the order", () => {
    const writes = groupedWrites();
    writes.set("k", "v");
    expect(() => writes.del("k")).toThrow(/written twice/);
    expect(() => writes.set("k", "w")).toThrow(/written twice/);
  });
});
