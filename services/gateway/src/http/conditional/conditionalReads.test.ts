import { createMetricsRegistry } from "@platform/runtime";
import { decodeReadModelChange } from "@platform/signals";
import { describe, expect, it } from "vitest";
import { ChangeClock, type Dependency } from "./changeClock.js";
import { applyChangeSignal } from "./changeSignals.js";
import { createConditionalReads, type KeptAnswer } from "./conditionalReads.js";

/** A change signal as the gateway receives it on `readmodel.changed.<projection>`. */
const received = (projection: string, payload: unknown) =>
  decodeReadModelChange(`readmodel.changed.${projection}`, payload);

const ALICE = `0x${"a1".repeat(32)}`;
const BOB = `0x${"b2".repeat(32)}`;

function setup() {
  let clockMs = 1_000_000;
  const registry = createMetricsRegistry("conditional-test");
  const reads = createConditionalReads({ blockSeconds: 12, registry, now: () => clockMs });
  reads.setSignalsReady(true);
  const answer = (dependencies: Dependency[], overrides: Partial<KeptAnswer> = {}): KeptAnswer => ({
    tag: '"t"',
    body: Buffer.from("{}"),
    contentType: "application/json",
    expiresAt: clockMs + 5_000,
    keepUntil: clockMs + 10_000,
    since: reads.clock.now(),
    dependencies,
    ...overrides,
  });
  return {
    reads,
    registry,
    answer,
    advance: (ms: number) => {
      clockMs += ms;
    },
  };
}

describe("conditional reads: what is kept stays current until its read model changes", () => {
  it("a market or subnets signal makes the answers read from that projection stale, and only those", () => {
    const { reads, answer } = setup();
    reads.keep("pools", answer(["market", "subnets"]));
    reads.keep("price", answer(["market"]));
    reads.keep("validators", answer(["subnets"]));
    applyChangeSignal(reads, received("subnets", { projection: "subnets", version: "v2" }));
    expect(reads.current("pools")).toBeUndefined();
    expect(reads.current("validators")).toBeUndefined();
    expect(reads.current("price")).toMatchObject({ tag: '"t"' });
    applyChangeSignal(reads, received("market", { projection: "market", version: "v3" }));
    expect(reads.current("price")).toBeUndefined();
  });

  it("an accounts signal makes stale the answers about the accounts it names, whatever their case", () => {
    const { reads, answer } = setup();
    reads.keep("alice", answer([{ account: ALICE }]));
    reads.keep("bob", answer([{ account: BOB }, "market"]));
    reads.keep("price", answer(["market"]));
    applyChangeSignal(
      reads,
      received("accounts", { accounts: [ALICE.toUpperCase().replace("0X", "0x")], truncated: false }),
    );
    expect(reads.current("alice")).toBeUndefined();
    expect(reads.current("bob")).toBeDefined();
    expect(reads.current("price")).toBeDefined();
  });

  it("a truncated (or unreadable) accounts signal makes every account's answers stale, not the market's", () => {
    for (const payload of [{ accounts: [ALICE], truncated: true }, { accounts: "x" }, null]) {
      const { reads, answer } = setup();
      reads.keep("bob", answer([{ account: BOB }]));
      reads.keep("price", answer(["market"]));
      applyChangeSignal(reads, received("accounts", payload));
      expect(reads.current("bob"), JSON.stringify(payload)).toBeUndefined();
      expect(reads.current("price")).toBeDefined();
    }
  });

  it("an accounts signal whose head moved makes every account's answers stale (each shows the head as as_of)", () => {
    const { reads, answer } = setup();
    reads.keep("bob", answer([{ account: BOB }]));
    reads.keep("price", answer(["market"]));
    applyChangeSignal(reads, received("accounts", { accounts: [ALICE], truncated: false, head: false }));
    expect(reads.current("bob")).toBeDefined();
    applyChangeSignal(reads, received("accounts", { accounts: [], truncated: false, head: true }));
    expect(reads.current("bob")).toBeUndefined();
    expect(reads.current("price")).toBeDefined();
  });

  it("ignores the signals of projections no Data API answer is read from", () => {
    const { reads, answer } = setup();
    reads.keep("price", answer(["market"]));
    reads.keep("alice", answer([{ account: ALICE }]));
    applyChangeSignal(reads, received("intents", { orderIds: ["0x01"] }));
    expect(reads.current("price")).toBeDefined();
    expect(reads.current("alice")).toBeDefined();
  });

  it("never keeps an answer whose read model changed while its call was in flight", () => {
    const { reads, answer } = setup();
    const since = reads.clock.now();
    applyChangeSignal(reads, received("market", {}));
    reads.keep("price", answer(["market"], { since }));
    expect(reads.current("price")).toBeUndefined();
    // A change of something else does not matter.
    const later = reads.clock.now();
    applyChangeSignal(reads, received("subnets", {}));
    reads.keep("price", answer(["market"], { since: later }));
    expect(reads.current("price")).toBeDefined();
  });
});

describe("conditional reads: bounded by age, and off without signals", () => {
  it("keeps an answer no longer than its keepUntil (a block after its read), even without a signal, past its Cache-Control", () => {
    const { reads, answer, advance } = setup();
    reads.keep("price", answer(["market"]));
    // Past its Cache-Control (5 s) but within its block: still proven by the signals.
    advance(9_999);
    expect(reads.current("price")).toBeDefined();
    advance(1);
    expect(reads.current("price")).toBeUndefined();
    // An answer already past its keepUntil is not kept at all.
    reads.keep("price", answer(["market"], { keepUntil: 0 }));
    expect(reads.current("price")).toBeUndefined();
  });

  it("proves nothing while the signals may be lost, and forgets what was kept before", async () => {
    const { reads, answer, registry } = setup();
    const enabled = async () =>
      (await registry.getSingleMetric("gateway_conditional_cache_enabled")!.get()).values[0]!.value;
    reads.keep("price", answer(["market"]));
    const inFlight = reads.clock.now();
    expect(await enabled()).toBe(1);
    reads.setSignalsReady(false);
    expect(reads.cacheOn()).toBe(false);
    expect(await enabled()).toBe(0);
    expect(reads.current("price")).toBeUndefined();
    reads.keep("price", answer(["market"]));
    expect(reads.current("price")).toBeUndefined();
    reads.setSignalsReady(true);
    expect(reads.current("price")).toBeUndefined();
    // A call that started before the signals came back proves nothing either.
    reads.keep("price", answer(["market"], { since: inFlight }));
    expect(reads.current("price")).toBeUndefined();
    reads.keep("price", answer(["market"]));
    expect(reads.current("price")).toBeDefined();
  });

  it("starts off: nothing is proven before the signals are known to arrive", () => {
    const reads = createConditionalReads({ blockSeconds: 12, registry: createMetricsRegistry("conditional-off") });
    reads.keep("price", {
      tag: '"t"',
      body: Buffer.from("{}"),
      contentType: "application/json",
      expiresAt: Date.now() + 10_000,
      keepUntil: Date.now() + 10_000,
      since: 0,
      dependencies: ["market"],
    });
    expect(reads.cacheOn()).toBe(false);
    expect(reads.current("price")).toBeUndefined();
  });

  it("bounds the kept answers' size: the least recently used go first", () => {
    const registry = createMetricsRegistry("conditional-small");
    const reads = createConditionalReads({ blockSeconds: 12, registry, maxBytes: 10 * 300 });
    reads.setSignalsReady(true);
    for (let index = 0; index < 50; index += 1)
      reads.keep(`key-${index}`, {
        tag: '"t"',
        body: Buffer.from("{}"),
        contentType: "application/json",
        expiresAt: Date.now() + 10_000,
        keepUntil: Date.now() + 10_000,
        since: reads.clock.now(),
        dependencies: [],
      });
    expect(reads.current("key-49")).toBeDefined();
    expect(reads.current("key-0")).toBeUndefined();
  });
});

describe("change clock", () => {
  it("forgets remembered accounts past its bound by counting every account as changed then", () => {
    const clock = new ChangeClock(2);
    const since = clock.now();
    clock.accountsChanged([ALICE]);
    const afterAlice = clock.now();
    expect(clock.lastChange([{ account: BOB }])).toBeLessThanOrEqual(since);
    clock.accountsChanged([`0x${"c3".repeat(32)}`, `0x${"d4".repeat(32)}`]);
    expect(clock.lastChange([{ account: BOB }])).toBeGreaterThan(afterAlice);
    expect(clock.lastChange(["market"])).toBe(0);
  });

  it("counts a whole-projection accounts change for every account", () => {
    const clock = new ChangeClock();
    const since = clock.now();
    clock.projectionChanged("accounts");
    expect(clock.lastChange([{ account: ALICE }])).toBeGreaterThan(since);
    expect(clock.lastChange(["accounts"])).toBeGreaterThan(since);
  });
});
