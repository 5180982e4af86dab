import { describe, expect, it } from "vitest";
import { createRpcQuota, isQuotaExceeded, RpcQuotaExceededError } from "./rpcQuota.js";

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
};

describe("user-triggered read limits", () => {
  it("sends at most maxInFlight requests at once, queues maxQueued, and refuses the rest without sending them", async () => {
    const quota = createRpcQuota(31337, { maxInFlight: 2, maxQueued: 1 });
    const hold = gate();
    let started = 0;
    const request = () => quota.run(async () => (started++, await hold.opened, "answer"));
    const calls = [request(), request(), request(), request()].map((call) => call.catch((error: unknown) => error));
    await Promise.resolve();
    expect(started).toBe(2);
    expect(quota.queued()).toBe(1);
    hold.open();
    const outcomes = await Promise.all(calls);
    expect(outcomes.filter((outcome) => outcome === "answer")).toHaveLength(3);
    const refused = outcomes.find((outcome) => outcome instanceof RpcQuotaExceededError);
    expect(isQuotaExceeded(new Error("wrapped", { cause: refused }))).toBe(true);
    expect(started).toBe(3);
    expect(quota.inFlight()).toBe(0);
  });
});
