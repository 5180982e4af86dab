import { join } from "node:path";
import { subtensorChainSpec } from "@platform/devnet";
import { type RunningChopsticks, startChopsticks, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/*
 * The local stack's native node builds a block on a timer (libs/testing subtensorNode.ts); a test
 * on a running stack holds that timer to have the chain to itself (a reorganisation with
 * `dev_setHead` must not race a timer's block) and lets it go again, over JSON-RPC.
 */

const BLOCK_MS = 1_000;
const state = tempDir("native-block-timer");
let node: RunningChopsticks;

const head = async () => Number((await node.request<{ number: string }>("chain_getHeader")).number);

beforeAll(async () => {
  node = await startChopsticks({
    genesis: subtensorChainSpec(),
    blockTimeMs: BLOCK_MS,
    logFile: join(state.path, "subtensor.log"),
  });
}, 120_000);

afterAll(async () => {
  await node?.stop();
  state.remove();
}, 30_000);

describe("the native node's block timer", () => {
  it("holds on dev_pauseBlockTimer (blocks then come only when asked) and builds again on dev_resumeBlockTimer", async () => {
    const running = await head();
    await waitFor(async () => (await head()) > running, { what: "a timer block", timeoutMs: 30_000, intervalMs: 100 });

    const paused = await node.pauseTimer();
    expect(paused).toEqual({ paused: true, head: await head() });
    // Three block times without a block: the timer holds, and no block it had begun lands late.
    await new Promise((resolve) => setTimeout(resolve, 3 * BLOCK_MS));
    expect(await head()).toBe(paused.head);
    // The chain is the caller's: a block on demand, and a new head set, both stay.
    await node.newBlocks(1);
    expect(await head()).toBe(paused.head + 1);
    await node.request("dev_setHead", [await node.request<string>("chain_getBlockHash", [paused.head])]);
    await new Promise((resolve) => setTimeout(resolve, 2 * BLOCK_MS));
    expect(await head()).toBe(paused.head);
    // Pausing again answers at once with the same state.
    expect(await node.pauseTimer()).toEqual({ paused: true, head: paused.head });

    const resumed = await node.resumeTimer();
    expect(resumed).toEqual({ paused: false, head: paused.head });
    await waitFor(async () => (await head()) >= paused.head + 2, {
      what: "the timer's blocks after resuming",
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    // Resuming a running timer changes nothing.
    expect((await node.resumeTimer()).paused).toBe(false);
  }, 90_000);

  it("answers the timer methods on a node without a timer, which stays without one", async () => {
    const manual = await startChopsticks({
      genesis: subtensorChainSpec(),
      logFile: join(state.path, "manual.log"),
    });
    try {
      const at = Number((await manual.request<{ number: string }>("chain_getHeader")).number);
      expect(await manual.pauseTimer()).toEqual({ paused: true, head: at });
      expect(await manual.resumeTimer()).toEqual({ paused: true, head: at });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(Number((await manual.request<{ number: string }>("chain_getHeader")).number)).toBe(at);
    } finally {
      await manual.stop();
    }
  }, 120_000);
});
