import type { Kafka } from "@platform/bus";
import type { SubstrateNetwork } from "@platform/chain";
import { PlatformError, TransientError } from "@platform/errors/base";
import { createLogger } from "@platform/log";
import { describe, expect, it } from "vitest";
import type { NativeChainReader } from "../node/chainReader.js";
import { startNativeIngestor } from "./ingestor.js";

// The connect loop's decision alone: a node that fails as told (the faults against a real node are
// faults.int.test.ts'), and a Kafka that is away (the source never starts here).
const network = { name: "subtensor", chainId: 945, rpcUrl: "ws://127.0.0.1:1" } as unknown as SubstrateNetwork;
const kafkaAway = {
  admin: () => ({
    connect: async () => {
      throw new TransientError("broker away");
    },
    disconnect: async () => undefined,
  }),
} as unknown as Kafka;

async function connectAttempts(error: () => Error, waitMs: number): Promise<number> {
  let attempts = 0;
  const ingestor = startNativeIngestor({
    kafka: kafkaAway,
    network,
    pollIntervalMs: 1_000,
    maxBlocksPerBatch: 10,
    replicationFactor: 1,
    log: createLogger({ service: "ingestor-test", level: "silent" }),
    onFenced: () => undefined,
    connect: async (): Promise<NativeChainReader> => {
      attempts += 1;
      throw error();
    },
  });
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  await ingestor.stop();
  return attempts;
}

describe("the native ingestor's connect loop", () => {
  it("tries again after a node that does not answer, and gives up at once on an error that cannot pass", async () => {
    // Back-off after the first failure: 1 s.
    expect(await connectAttempts(() => new TransientError("node away"), 1_300)).toBe(2);
    const refused = () =>
      new PlatformError("the node's chain is another network", { code: "WRONG_CHAIN", retryable: false });
    expect(await connectAttempts(refused, 1_300)).toBe(1);
  });
});
