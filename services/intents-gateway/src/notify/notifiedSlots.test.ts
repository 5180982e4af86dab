import { intentsReadKeys } from "@platform/read-models";
import { sharedKeySlot } from "@platform/store";
import { describe, expect, it } from "vitest";
import { quoteIndexKey, quoteKey } from "../quote/quoteStore.js";
import { claimKey, notifiedKey } from "./notifiedKeys.js";

// Redis Cluster runs a MULTI, a script or a pipeline (ioredis) only within one slot (keySlot.ts).
describe("intents-gateway's keys touched together", () => {
  const txHash = `0x${"AB".repeat(32)}`;
  const user = "0x71C7656EC7ab88b098defB751B7401B5f6d8976F";

  it("a notification's MULTI and the transaction read's pipeline share the read model's slot", () => {
    sharedKeySlot([
      claimKey("31337", txHash, user),
      notifiedKey("31337", txHash),
      intentsReadKeys.txOrders("31337", txHash),
      intentsReadKeys.txState("31337", txHash),
      intentsReadKeys.txOrder("31337", txHash),
      intentsReadKeys.order(`0x${"cd".repeat(32)}`),
    ]);
  });

  it("a quote and its key's index share the key's slot, also without a key id", () => {
    for (const apiKeyId of ["ak_1", ""]) sharedKeySlot([quoteIndexKey(apiKeyId), quoteKey(apiKeyId, "q1")]);
    expect(() => sharedKeySlot([quoteIndexKey("ak_1"), quoteIndexKey("ak_2")])).toThrow(/different slots/);
  });
});
