import { describe, expect, it } from "vitest";
import { accountsKeys } from "./accounts.js";
import { intentsChangeLog } from "./changeLogs.js";
import { intentsKeys } from "./intents.js";
import { projectionKeySpaces } from "./keySpaces.js";
import { marketKeys } from "./market.js";
import { subnetsKeys } from "./subnets.js";
import { readModelVersionKeys } from "./versions.js";

/** Every key of a layout, its functions called with sample arguments. */
function keysOf(layout: Record<string, string | ((...args: never[]) => string)>): string[] {
  return Object.values(layout).map((key) =>
    typeof key === "string" ? key : (key as (...args: unknown[]) => string)("a", 1, "1d"),
  );
}

describe("the projections' key spaces (what their Redis users are granted)", () => {
  it("hold every key of each projection's layout under its prefix", () => {
    const layouts = {
      intents: [...keysOf(intentsKeys), intentsChangeLog.key],
      accounts: keysOf(accountsKeys),
      market: [...keysOf(marketKeys), readModelVersionKeys.market],
      subnets: [...keysOf(subnetsKeys), readModelVersionKeys.subnets],
    };
    for (const [projection, keys] of Object.entries(layouts)) {
      const { prefix } = projectionKeySpaces[projection as keyof typeof projectionKeySpaces];
      for (const key of keys) expect(key.startsWith(prefix), `${projection}: ${key}`).toBe(true);
    }
  });

  it("share no prefix: no projection's prefix covers another's keys", () => {
    const spaces = Object.entries(projectionKeySpaces);
    for (const [name, { prefix }] of spaces)
      for (const [other, space] of spaces)
        if (other !== name) expect(space.prefix.startsWith(prefix), `${name} covers ${other}`).toBe(false);
  });
});
