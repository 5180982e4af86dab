import { PoolMechanism } from "@platform/proto/common/v1/network";
import { describe, expect, it } from "vitest";
import { poolMechanism } from "./poolMechanism.js";

describe("poolMechanism", () => {
  it("names SubnetMechanism 0 stable and 1 dynamic, and no other value either", () => {
    expect([0, 1, 2].map(poolMechanism)).toEqual([
      PoolMechanism.POOL_MECHANISM_STABLE,
      PoolMechanism.POOL_MECHANISM_DYNAMIC,
      PoolMechanism.POOL_MECHANISM_UNSPECIFIED,
    ]);
  });
});
