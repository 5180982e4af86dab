import { encodeBytes, encodeU16, encodeU64, precompileAddresses, subtensorStorageKeys } from "@platform/subtensor";
import { bytesToHex, concatHex, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import type { CallResult } from "./multicallAt.js";
import { networkStorageCalls, subnetStorageCalls, takeCall, toNetworkStorage, toNeuronMetadata, toSubnetMetadata } from "./storageReads.js";

const answered = (bytes: Uint8Array | Hex): CallResult => ({ ok: true, value: typeof bytes === "string" ? bytes : bytesToHex(bytes) });
const empty: CallResult = { ok: true, value: "0x" };
const failed: CallResult = { ok: false };

describe("storage reads", () => {
  it("call StorageQuery with the raw key as the whole calldata", () => {
    expect(networkStorageCalls()).toEqual([
      { address: precompileAddresses.storageQuery, data: subtensorStorageKeys.totalIssuance() },
      { address: precompileAddresses.storageQuery, data: subtensorStorageKeys.blockEmission() },
      { address: precompileAddresses.storageQuery, data: subtensorStorageKeys.subnetLimit() },
    ]);
    expect(subnetStorageCalls(3).map((call) => call.data)).toContain(subtensorStorageKeys.tempo(3));
    expect(takeCall(`0x${"11".repeat(32)}`).data).toBe(subtensorStorageKeys.delegateTake(`0x${"11".repeat(32)}`));
  });

  it("decode what is stored", () => {
    const errors: string[] = [];
    expect(toNetworkStorage([answered(encodeU64(5n)), answered(encodeU64(7n)), answered(encodeU16(64))], (item) => errors.push(item))).toEqual({
      totalIssuance: 5n,
      blockEmission: 7n,
      subnetLimit: 64,
    });
    const owner: Hex = `0x${"22".repeat(32)}`;
    const identity = concatHex(["Kestrel", "g", "c", "u", "d", "x", "l", ""].map((field) => bytesToHex(encodeBytes(field))));
    expect(toSubnetMetadata(1, [answered(encodeU16(360)), answered(encodeBytes("κ")), answered(identity), answered(owner), failed], () => undefined)).toEqual({
      tempo: 360,
      symbol: "κ",
      identity: { subnetName: "Kestrel", githubRepo: "g", subnetContact: "c", subnetUrl: "u", discord: "d", description: "x", logoUrl: "l", additional: "" },
      ownerColdkey: owner,
    });
    expect(errors).toEqual([]);
  });

  it("apply the pallet's default where nothing is stored and it has one; leave the rest out", () => {
    expect(toNetworkStorage([empty, empty, empty], () => undefined)).toEqual({ blockEmission: 1_000_000_000n, subnetLimit: 128 });
    expect(toSubnetMetadata(0, [empty, empty, empty, empty, empty], () => undefined)).toEqual({ symbol: "\u{1D70F}" });
    expect(toNeuronMetadata(empty, empty, () => undefined)).toEqual({});
  });

  it("leave out what failed to read (no precompile) without applying a default", () => {
    expect(toNetworkStorage([failed, failed, failed], () => undefined)).toEqual({});
    expect(toNeuronMetadata(undefined, failed, () => undefined)).toEqual({});
  });

  it("report and leave out a value that does not decode as the item's type", () => {
    const errors: string[] = [];
    expect(toNeuronMetadata(answered(encodeU64(1n)), answered("0x0c6162"), (item) => errors.push(item))).toEqual({});
    expect(errors).toEqual(["Delegates", "IdentitiesV2"]);
  });
});
