import { Finality } from "@platform/proto/common/v1/common";
import type { AccountId } from "@platform/proto/common/v1/network";
import { HolderCoverage } from "@platform/proto/common/v1/network";
import type { HolderPositions } from "@platform/proto/events/v1/chain_network";
import { alphaOfMember, rankHolders, rankMember } from "@platform/read-models";
import { describe, expect, it } from "vitest";
import { addChunk, dropChunks, type PendingChunks } from "./holders.js";

const account = (byte: string): AccountId => ({ ss58: `ss58-${byte}`, publicKey: `0x${byte.repeat(64)}` });
const chunk = (
  block: number,
  hash: string,
  index: number,
  count: number,
  positions: [string, string, string][],
): HolderPositions => ({
  ref: {
    chainId: "945",
    blockNumber: String(block),
    blockHash: hash,
    parentHash: "0x00",
    blockTimestamp: "2026-01-01T00:00:00.000Z",
    finality: Finality.FINALITY_LATEST,
  },
  netuid: 3,
  coverage: HolderCoverage.HOLDER_COVERAGE_COMPLETE,
  chunkIndex: index,
  chunkCount: count,
  positions: positions.map(([coldkey, hotkey, alpha]) => ({
    coldkey: account(coldkey),
    hotkey: account(hotkey),
    alphaNalpha: alpha,
  })),
});

describe("holder chunks", () => {
  it("assembles a set only once every chunk of its block is there, in chunk order", () => {
    const pending: PendingChunks = new Map();
    expect(addChunk(pending, chunk(10, "0xaa", 1, 3, [["b", "1", "20"]]))).toBeUndefined();
    expect(addChunk(pending, chunk(10, "0xaa", 0, 3, [["a", "1", "10"]]))).toBeUndefined();
    const set = addChunk(pending, chunk(10, "0xaa", 2, 3, [["c", "1", "30"]]));
    expect(set?.chunkCount).toBe(1);
    expect(set?.positions.map((position) => position.alphaNalpha)).toEqual(["10", "20", "30"]);
    expect(pending.size).toBe(0);
  });

  it("a completed block drops older incomplete blocks; a removal drops its block's chunks", () => {
    const pending: PendingChunks = new Map();
    addChunk(pending, chunk(10, "0xaa", 0, 2, [["a", "1", "10"]]));
    addChunk(pending, chunk(12, "0xcc", 0, 2, [["a", "1", "10"]]));
    expect(addChunk(pending, chunk(11, "0xbb", 0, 1, [["a", "1", "11"]]))).toBeDefined();
    expect([...pending.keys()]).toEqual(["0xcc:0"]);
    dropChunks(pending, "0xCC");
    expect(pending.size).toBe(0);
  });
});

describe("holder ranking", () => {
  it("sums a coldkey's hotkeys, skips zero holdings, and orders by alpha then key under lexicographic order", () => {
    const { coldkeys, positions } = rankHolders(
      chunk(10, "0xaa", 0, 1, [
        ["a", "1", "5"],
        ["b", "1", "7"],
        ["a", "2", "3"],
        ["c", "1", "0"],
        ["d", "2", "8"],
      ]),
    );
    const order = [...coldkeys].sort((left, right) => (left.member < right.member ? -1 : 1));
    expect(order.map((entry) => [entry.row.coldkey.ss58, entry.row.alpha])).toEqual([
      ["ss58-a", "8"],
      ["ss58-d", "8"],
      ["ss58-b", "7"],
    ]);
    expect(order[0]!.row.hotkeys.map((held) => held.alpha)).toEqual(["5", "3"]);
    expect(positions).toHaveLength(4);
    expect(alphaOfMember(order[0]!.member)).toBe(8n);
  });

  it("rank members order big alphas exactly", () => {
    const big = rankMember(18_446_744_073_709_551_615n, "x");
    const smaller = rankMember(18_446_744_073_709_551_614n, "x");
    expect(big < smaller).toBe(true);
  });
});
