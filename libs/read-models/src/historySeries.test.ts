import { describe, expect, it } from "vitest";
import { historySeriesKey, snapshotPointOf, subnetsSeriesKeptAs } from "./historySeries.js";
import { marketKeys } from "./market.js";
import { subnetsKeys } from "./subnets.js";

describe("the subnets' pools and emissions in the history database", () => {
  it("are read under the market's keys, and every other series under its own", () => {
    expect(historySeriesKey(subnetsKeys.poolPoints(7))).toBe(marketKeys.poolPoints(7));
    expect(historySeriesKey(subnetsKeys.emissionPoints(128))).toBe(marketKeys.emissionPoints(128));
    for (const key of [
      subnetsKeys.subnetPoints(7),
      subnetsKeys.validatorPoints(7),
      subnetsKeys.holderPoints(7),
      marketKeys.poolPoints(7),
      `${subnetsKeys.poolPoints(7)}x`,
    ])
      expect(historySeriesKey(key)).toBe(key);
  });

  it("map the market's series back to the subnets' (a restore copies them), nothing else", () => {
    expect(subnetsSeriesKeptAs(marketKeys.poolPoints(3))).toBe(subnetsKeys.poolPoints(3));
    expect(subnetsSeriesKeptAs(marketKeys.emissionPoints(3))).toBe(subnetsKeys.emissionPoints(3));
    expect(subnetsSeriesKeptAs(marketKeys.statsPoints)).toBeUndefined();
    expect(subnetsSeriesKeptAs(subnetsKeys.poolPoints(3))).toBeUndefined();
  });

  it("strip a market point to the snapshot the subnets projection writes", () => {
    const point = { o: 500_000, b: 5, h: "0xab", t: 60_000, p: "AQI=", u: { b: "1", s: "2" }, w: { t: "1" } };
    expect(snapshotPointOf(point as never)).toEqual({ o: 500_000, b: 5, h: "0xab", t: 60_000, p: "AQI=" });
  });
});
