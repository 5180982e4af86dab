import { type AbiEvent, type AbiFunction, toEventSelector, toFunctionSelector } from "viem";
import { describe, expect, it } from "vitest";
import { priceFeedAbi } from "./priceFeedAbi.js";

// A function or event whose name or argument types drift from Chainlink's changes its selector, and
// the price source would read nothing from a real feed.
describe("priceFeedAbi", () => {
  it("has Chainlink's V3 reads and V2 events", () => {
    const items = priceFeedAbi as readonly (AbiFunction | AbiEvent)[];
    const functions = Object.fromEntries(
      items
        .filter((item): item is AbiFunction => item.type === "function")
        .map((item) => [item.name, toFunctionSelector(item).slice(2)]),
    );
    expect(functions).toMatchObject({ latestRoundData: "feaf968c", getRoundData: "9a6fc8f5", decimals: "313ce567" });
    const events = items.filter((item): item is AbiEvent => item.type === "event");
    expect(Object.fromEntries(events.map((event) => [event.name, toEventSelector(event)]))).toEqual({
      // keccak256("AnswerUpdated(int256,uint256,uint256)") and keccak256("NewRound(uint256,address,uint256)")
      AnswerUpdated: "0x0559884fd3a460db3073b7fc896cc77986f16e378210ded43186175bf646fc5f",
      NewRound: "0x0109fc6f55cf40689f02fbaad7af7fe7bbac8a3d2186600afc7d3e10cac60271",
    });
  });
});
