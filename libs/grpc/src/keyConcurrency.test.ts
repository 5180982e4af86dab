import { describe, expect, it } from "vitest";
import { createKeyConcurrency } from "./keyConcurrency.js";

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
};

describe("per-key concurrency", () => {
  it("lets one API key run at most `limit` calls at once (429 RATE_LIMITED), other keys unaffected", async () => {
    const perKey = createKeyConcurrency(2, "preflight checks");
    const hold = gate();
    const slow = (key: string) => perKey.run(key, () => hold.opened);
    const first = [slow("a"), slow("a")];
    await expect(slow("a")).rejects.toMatchObject({ code: "RATE_LIMITED", httpStatus: 429 });
    const other = slow("b");
    expect(perKey.running("a")).toBe(2);
    hold.open();
    await Promise.all([...first, other]);
    expect(perKey.running("a")).toBe(0);
    await expect(perKey.run("a", async () => "again")).resolves.toBe("again");
  });
});
