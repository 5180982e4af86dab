import { describe, expect, it } from "vitest";
import { decodeReadModelChange } from "./readModelChanges.js";

describe("decodeReadModelChange", () => {
  it("reads each projection's signal as its member of the union", () => {
    expect(decodeReadModelChange("readmodel.changed.market", { projection: "market", version: "v1" })).toEqual({
      projection: "market",
      change: { projection: "market", version: "v1" },
    });
    expect(
      decodeReadModelChange("readmodel.changed.accounts", { accounts: ["0xab"], truncated: false, head: true }),
    ).toEqual({
      projection: "accounts",
      change: { projection: "accounts", accounts: ["0xab"], truncated: false, head: true },
    });
    expect(
      decodeReadModelChange("readmodel.changed.intents", {
        orderKeys: [],
        users: ["u"],
        transactions: [],
        truncated: true,
      }).change,
    ).toEqual({ projection: "intents", orderKeys: [], users: ["u"], transactions: [], truncated: true });
  });

  it("names the projection but no change when the payload is not that projection's", () => {
    expect(decodeReadModelChange("readmodel.changed.accounts", { accounts: [1], truncated: false })).toEqual({
      projection: "accounts",
      change: undefined,
    });
    expect(decodeReadModelChange("readmodel.changed.subnets", "v2")).toEqual({
      projection: "subnets",
      change: undefined,
    });
  });

  it("names no projection for a subject none publishes", () => {
    expect(decodeReadModelChange("readmodel.changed.nonsense", { version: "v" })).toEqual({
      projection: undefined,
      change: undefined,
    });
  });
});
