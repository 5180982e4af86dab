// An integration-tier file only because it reads the local stack's flags (@platform/local-stack); it starts nothing.
import { NODE_FLAGS, SERVICE_ORDER } from "@platform/local-stack";
import { describe, expect, it } from "vitest";
import { DEPLOYABLES, NODE_OPTIONS } from "./deployables.js";

describe("NODE_OPTIONS", () => {
  it("gives each service the V8 flags the local stack runs it with", () => {
    for (const service of SERVICE_ORDER)
      expect([service, NODE_OPTIONS[service]]).toEqual([service, NODE_FLAGS[service]?.join(" ")]);
  });

  it("reaches every deployable of a service that has flags, and no other", () => {
    for (const deployable of DEPLOYABLES)
      expect([deployable.name, deployable.env.NODE_OPTIONS]).toEqual([
        deployable.name,
        NODE_OPTIONS[deployable.service],
      ]);
  });
});
