import { sharedKeySlot } from "@platform/store";
import { describe, expect, it } from "vitest";
import { tcKeys } from "./keys.js";

// Redis Cluster runs a MULTI, a script or a pipeline (ioredis) only within one slot (keySlot.ts).
describe("tc's keys touched together", () => {
  const wallets = ["0x71C7656EC7ab88b098defB751B7401B5f6d8976F", "0x0000000000000000000000000000000000000001"];

  it("the projection's commit (wallets and the partition's offset) and a status read (a wallet and the marker) share one slot", () => {
    sharedKeySlot([
      ...wallets.map((wallet) => tcKeys.wallet(wallet)),
      tcKeys.offset("tc.acceptances.v1", 0),
      tcKeys.offset("tc.acceptances.v1", 5),
      tcKeys.marker,
    ]);
  });

  it("keeps nonces untagged: each is its command's only key, spread over the cluster", () => {
    expect(tcKeys.nonce("a1b2c3d4e5f6a7b8")).toBe("tc:nonce:a1b2c3d4e5f6a7b8");
  });
});
