import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import {
  type BlockSource,
  createBlockFollower,
  type FollowerCommit,
  ForkDuringReadError,
  ReorgBeyondWindowError,
} from "./blockFollower.js";
import type { BlockHeader } from "./blocks.js";
import type { HeaderReader } from "./headerReader.js";

/*
 * The follower against an in-memory chain whose blocks can be replaced (a fork) or dropped (a
 * rollback): every commit is recorded, and each block carries one event named after its hash.
 */

class FakeChain {
  blocks: BlockHeader[] = [];
  failNextRead = false;

  constructor(length: number) {
    this.extend(length, "a");
  }

  extend(count: number, fork: string): void {
    for (let index = 0; index < count; index++) {
      const number = this.blocks.length;
      const parentHash = this.blocks.at(-1)?.hash ?? (`0x${"0".repeat(64)}` as Hex);
      this.blocks.push({
        number: BigInt(number),
        hash: `0x${fork.repeat(2)}${number.toString(16).padStart(62, "0")}` as Hex,
        parentHash,
        timestamp: BigInt(number),
      });
    }
  }

  /** Replaces every block above `ancestor` with `count` blocks of another fork. */
  fork(ancestor: number, count: number, fork: string): void {
    this.blocks = this.blocks.slice(0, ancestor + 1);
    this.extend(count, fork);
  }

  reader(): HeaderReader {
    return {
      latestBlockNumber: async () => BigInt(this.blocks.length - 1),
      headersAt: async (numbers) => numbers.flatMap((number) => this.blocks.filter((block) => block.number === number)),
    };
  }

  source(): BlockSource<string> {
    return {
      readBlocks: async (headers) => {
        if (this.failNextRead) {
          this.failNextRead = false;
          throw new ForkDuringReadError("switched forks");
        }
        return new Map(
          headers.map((header) => [header.hash, [`event@${header.hash.slice(2, 4)}:${header.number}`]] as const),
        );
      },
    };
  }
}

function follow(
  chainModel: FakeChain,
  options: { windowSize?: number; maxBlocksPerStep?: number; failCommits?: number } = {},
) {
  const commits: FollowerCommit<string>[] = [];
  let failures = options.failCommits ?? 0;
  const follower = createBlockFollower<string>({
    headers: chainModel.reader(),
    source: chainModel.source(),
    windowSize: options.windowSize ?? 8,
    maxBlocksPerStep: options.maxBlocksPerStep ?? 100,
    window: [],
    startBlock: 0n,
    commit: async (step) => {
      if (failures > 0) {
        failures -= 1;
        throw new Error("kafka away");
      }
      commits.push(step);
    },
  });
  const runUntilIdle = async () => {
    for (let guard = 0; guard < 100; guard++) {
      const outcome = await follower.step();
      if (outcome.kind === "idle") return;
    }
    throw new Error("never idle");
  };
  return { follower, commits, runUntilIdle };
}

const published = (commits: FollowerCommit<string>[]) =>
  commits.flatMap((commit) => commit.blocks.flatMap((block) => block.events));
const removed = (commits: FollowerCommit<string>[]) =>
  commits.flatMap((commit) => commit.orphaned.flatMap((block) => block.events));

describe("block follower", () => {
  it("works off a backlog in ranges, then follows new blocks one step each", async () => {
    const model = new FakeChain(25);
    const { follower, commits, runUntilIdle } = follow(model, { maxBlocksPerStep: 10 });
    await runUntilIdle();
    expect(commits.map((commit) => commit.blocks.length)).toEqual([10, 10, 5]);
    expect(follower.tip()?.number).toBe(24n);
    expect(commits.at(-1)?.window.map((block) => block.number)).toEqual([17n, 18n, 19n, 20n, 21n, 22n, 23n, 24n]);
    model.extend(1, "a");
    await runUntilIdle();
    expect(commits.at(-1)?.blocks.map((block) => block.header.number)).toEqual([25n]);
    expect(published(commits)).toHaveLength(26);
  });

  it("walks back to the common ancestor on a fork, removes what was above it, and reads the new fork", async () => {
    const model = new FakeChain(10);
    const { commits, runUntilIdle } = follow(model);
    await runUntilIdle();
    model.fork(6, 5, "b"); // blocks 7..9 replaced, 10..11 added
    await runUntilIdle();
    const reorg = commits.find((commit) => commit.orphaned.length > 0)!;
    expect(reorg.commonAncestor?.number).toBe(6n);
    expect(reorg.tip.number).toBe(6n);
    expect(removed(commits)).toEqual(["event@aa:7", "event@aa:8", "event@aa:9"]);
    expect(published(commits).filter((event) => event.startsWith("event@bb"))).toEqual([
      "event@bb:7",
      "event@bb:8",
      "event@bb:9",
      "event@bb:10",
      "event@bb:11",
    ]);
  });

  it("detects a same-height fork of the tip and a rollback below it while no new block came", async () => {
    const model = new FakeChain(6);
    const { commits, runUntilIdle } = follow(model);
    await runUntilIdle();
    model.fork(3, 2, "c"); // same height: 4 and 5 replaced
    await runUntilIdle();
    expect(removed(commits)).toEqual(["event@aa:4", "event@aa:5"]);
    model.fork(2, 0, "d"); // rolled back to 2
    await runUntilIdle();
    expect(removed(commits)).toEqual(["event@aa:4", "event@aa:5", "event@aa:3", "event@cc:4", "event@cc:5"]);
    expect(commits.at(-1)?.tip.number).toBe(2n);
  });

  it("stops with ReorgBeyondWindowError when no kept block is canonical", async () => {
    const model = new FakeChain(20);
    const { follower, runUntilIdle } = follow(model, { windowSize: 4 });
    await runUntilIdle();
    model.fork(10, 12, "e");
    await expect(follower.step()).rejects.toBeInstanceOf(ReorgBeyondWindowError);
  });

  it("leaves its state unchanged when a read or a commit fails, so the step is retried", async () => {
    const model = new FakeChain(5);
    const { follower, commits, runUntilIdle } = follow(model, { failCommits: 1 });
    await expect(follower.step()).rejects.toThrow("kafka away");
    expect(follower.tip()).toBeUndefined();
    model.failNextRead = true;
    await expect(follower.step()).rejects.toBeInstanceOf(ForkDuringReadError);
    await runUntilIdle();
    expect(published(commits)).toEqual(["event@aa:0", "event@aa:1", "event@aa:2", "event@aa:3", "event@aa:4"]);
  });

  it("reads the next range while committing, and drops that read when the commit fails or the chain forked", async () => {
    const model = new FakeChain(40);
    const commits: FollowerCommit<string>[] = [];
    let calls = 0;
    const follower = createBlockFollower<string>({
      headers: model.reader(),
      source: model.source(),
      windowSize: 50,
      maxBlocksPerStep: 10,
      window: [],
      startBlock: 0n,
      commit: async (step) => {
        calls += 1;
        // The second commit fails; while the third is in flight the chain forks below its range.
        if (calls === 2) throw new Error("kafka away");
        if (calls === 3) model.fork(22, 30, "f");
        commits.push(step);
      },
    });
    await follower.step();
    await expect(follower.step()).rejects.toThrow("kafka away");
    for (let guard = 0; guard < 50; guard++) if ((await follower.step()).kind === "idle") break;
    const standing = new Set(published(commits));
    for (const gone of removed(commits)) standing.delete(gone);
    const expected = model.blocks.map((block) => `event@${block.hash.slice(2, 4)}:${block.number}`);
    expect([...standing].sort()).toEqual([...expected].sort());
    // No block was published twice on the same fork.
    expect(new Set(published(commits)).size).toBe(published(commits).length);
  });

  it("resumes from a restored window without repeating a block", async () => {
    const model = new FakeChain(8);
    const first = follow(model);
    await first.runUntilIdle();
    const window = first.commits.at(-1)!.window.map((block) => ({ block, events: [`event@aa:${block.number}`] }));
    model.extend(2, "a");
    const commits: FollowerCommit<string>[] = [];
    const resumed = createBlockFollower<string>({
      headers: model.reader(),
      source: model.source(),
      windowSize: 8,
      maxBlocksPerStep: 100,
      window,
      startBlock: 0n,
      commit: async (step) => void commits.push(step),
    });
    await resumed.step();
    expect(published(commits)).toEqual(["event@aa:8", "event@aa:9"]);
  });
});

describe("block follower window", () => {
  it("keeps what windowEvent keeps of each event, and names that in the removals of a fork", async () => {
    const model = new FakeChain(6);
    const commits: FollowerCommit<string>[] = [];
    const follower = createBlockFollower<string>({
      headers: model.reader(),
      source: model.source(),
      windowSize: 8,
      maxBlocksPerStep: 100,
      window: [],
      windowEvent: (event) => event.split(":")[0]!,
      startBlock: 0n,
      commit: async (step) => void commits.push(step),
    });
    for (let guard = 0; guard < 10 && (await follower.step()).kind !== "idle"; guard++);
    expect(commits.flatMap((commit) => commit.blocks.flatMap((block) => block.events))).toContain("event@aa:5");
    model.fork(3, 3, "d");
    for (let guard = 0; guard < 10 && (await follower.step()).kind !== "idle"; guard++);
    expect(removed(commits)).toEqual(["event@aa", "event@aa"]);
  });
});
