import type { Client, Hex } from "viem";
import { describe, expect, it } from "vitest";
import type { BlockHeader } from "../follower/blocks.js";
import { recoverWindow } from "./recoverWindow.js";

const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;

/** A node that knows blocks 1 and 3 by hash, at head 10. */
function fakeNode(): Client {
  const known = new Map([1, 3].map((n) => [hash(n), n] as const));
  const request = async ({ method, params }: { method: string; params?: unknown[] }) => {
    if (method === "eth_blockNumber") return "0xa";
    const number = known.get(params?.[0] as Hex);
    if (number === undefined) return null;
    return { number: `0x${number.toString(16)}`, hash: hash(number), parentHash: hash(number - 1), timestamp: "0x1" };
  };
  return { request } as unknown as Client;
}

describe("recoverWindow", () => {
  it("reads the known blocks' events at the node's head and names the forgotten ones", async () => {
    const asked: { numbers: bigint[]; latest: bigint }[] = [];
    const blocks = [1, 2, 3].map((n) => ({ number: BigInt(n), hash: hash(n) }));
    const recovered = await recoverWindow(fakeNode(), blocks, async (headers: readonly BlockHeader[], latest) => {
      asked.push({ numbers: headers.map((header) => header.number), latest });
      return new Map(headers.map((header) => [header.hash, [`event of ${header.number}`]] as const));
    });
    expect(asked).toEqual([{ numbers: [1n, 3n], latest: 10n }]);
    expect(recovered.unknown).toEqual([blocks[1]]);
    expect(recovered.window).toEqual([
      { block: blocks[0], events: ["event of 1"] },
      { block: blocks[1], events: [] },
      { block: blocks[2], events: ["event of 3"] },
    ]);
  });
});
