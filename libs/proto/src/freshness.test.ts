import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { credentials, Metadata, Server, ServerCredentials, type ServiceError, status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Finality } from "./gen/common/v1/common.js";
import type { IntentsChainEvent } from "./gen/events/v1/chain_intents.js";
import { NetworkChainEvent } from "./gen/events/v1/chain_network.js";
import { type GetStatusResponse, TcServiceClient, type TcServiceServer, TcServiceService } from "./gen/tc/v1/tc.js";
import { decodePayload, encodePayload, eventTypeOf, TOPICS } from "./topics.js";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const buf = join(repoRoot, "node_modules", ".bin", "buf");
const committedGen = join(repoRoot, "libs", "proto", "src", "gen");

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

describe("generated code is fresh", () => {
  let outDir = "";

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), "proto-gen-"));
  });

  afterAll(async () => {
    if (outDir !== "") await rm(outDir, { recursive: true, force: true });
  });

  it("passes buf lint", async () => {
    // execFile rejects on a non-zero exit; buf prints the violations on stdout.
    const result = await run(buf, ["lint"], { cwd: repoRoot }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`buf lint failed:\n${error.stdout ?? ""}${error.stderr ?? ""}`);
    });
    expect(result.stdout).toBe("");
  });

  it("matches a fresh buf generate byte for byte", async () => {
    // -o is prepended to the template's `out`, so the fresh tree lands in <outDir>/libs/proto/src/gen.
    await run(buf, ["generate", "--template", "buf.gen.yaml", "-o", outDir], { cwd: repoRoot });
    const freshGen = join(outDir, "libs", "proto", "src", "gen");

    const fresh = await listFiles(freshGen);
    const committed = await listFiles(committedGen);
    expect(fresh.length).toBeGreaterThan(0);
    // Missing or extra files: run `pnpm gen:proto` and commit the result.
    expect(committed).toEqual(fresh);

    const stale: string[] = [];
    for (const file of fresh) {
      const [a, b] = await Promise.all([readFile(join(freshGen, file)), readFile(join(committedGen, file))]);
      if (!a.equals(b)) stale.push(file);
    }
    expect(stale, "generated files differ from proto/; run `pnpm gen:proto`").toEqual([]);
  });
});

describe("wire round trip", () => {
  const uint256Max = (2n ** 256n - 1n).toString();
  const uint64Max = (2n ** 64n - 1n).toString();

  it("keeps uint256 amounts and uint64 block numbers exact and the oneof case", () => {
    const payload: IntentsChainEvent = {
      event: {
        $case: "orderSettled",
        value: {
          ref: {
            chainId: "31337",
            blockNumber: uint64Max,
            blockHash: `0x${"ab".repeat(32)}`,
            parentHash: `0x${"cd".repeat(32)}`,
            blockTimestamp: "2026-11-22T10:00:00.000Z",
            txHash: `0x${"12".repeat(32)}`,
            txIndex: 0,
            logIndex: 0,
            finality: Finality.FINALITY_SAFE,
          },
          orderId: `0x${"01".repeat(32)}`,
          settler: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
          filler: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
          inputToken: `0x${"00".repeat(32)}`,
          inputAmount: uint256Max,
        },
      },
    };

    const bytes = encodePayload(TOPICS.chainIntents, payload);
    const decoded = decodePayload(TOPICS.chainIntents, bytes);

    expect(decoded).toEqual(payload);
    expect(eventTypeOf(decoded)).toBe("OrderSettled");
    if (decoded.event?.$case !== "orderSettled") throw new Error(`unexpected case ${decoded.event?.$case}`);
    expect(decoded.event.value.inputAmount).toBe(uint256Max);
    expect(decoded.event.value.ref?.blockNumber).toBe(uint64Max);
    // Present-and-zero survives (proto3 optional), so the first log of a block is not lost.
    expect(decoded.event.value.ref?.logIndex).toBe(0);
  });

  it("decodes an empty payload as carrying no event", () => {
    expect(NetworkChainEvent.decode(new Uint8Array()).event).toBeUndefined();
    expect(() => eventTypeOf(NetworkChainEvent.decode(new Uint8Array()))).toThrow("no event");
  });
});

describe("grpc-js with the generated service", () => {
  let server: Server;
  let client: TcServiceClient;

  beforeAll(async () => {
    server = new Server();
    const implementation: Pick<TcServiceServer, "getStatus" | "checkGate"> = {
      getStatus(call, callback) {
        callback(null, {
          walletAddress: call.request.walletAddress,
          currentTcVersion: 3,
          acceptedVersion: 2,
          accepted: false,
          acceptedAt: "2026-11-01T10:00:00.000Z",
        });
      },
      checkGate(_call, callback) {
        // Answers later than the caller's deadline.
        setTimeout(() => callback(null, { allowed: true, currentTcVersion: 3 }), 500).unref();
      },
    };
    // Methods left out answer UNIMPLEMENTED (grpc-js fills them in).
    server.addService(TcServiceService, implementation);
    const port = await new Promise<number>((resolve, reject) => {
      server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, boundPort) =>
        error ? reject(error) : resolve(boundPort),
      );
    });
    client = new TcServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
  });

  afterAll(() => {
    client?.close();
    server?.forceShutdown();
  });

  it("serves a unary call within the deadline", async () => {
    const response = await new Promise<GetStatusResponse>((resolve, reject) => {
      client.getStatus(
        { walletAddress: "0x52908400098527886E0F7030069857D2E4169EE7" },
        new Metadata(),
        { deadline: Date.now() + 5_000 },
        (error, value) => (error ? reject(error) : resolve(value)),
      );
    });
    expect(response).toEqual({
      walletAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
      currentTcVersion: 3,
      acceptedVersion: 2,
      accepted: false,
      acceptedAt: "2026-11-01T10:00:00.000Z",
    });
  });

  it("fails with DEADLINE_EXCEEDED when the server is slower than the deadline", async () => {
    const error = await new Promise<ServiceError>((resolve, reject) => {
      client.checkGate(
        { walletAddress: "0x52908400098527886E0F7030069857D2E4169EE7" },
        new Metadata(),
        { deadline: Date.now() + 100 },
        (err) => (err ? resolve(err) : reject(new Error("expected a deadline error"))),
      );
    });
    expect(error.code).toBe(status.DEADLINE_EXCEEDED);
  });

  it("answers UNIMPLEMENTED for a method the server does not implement", async () => {
    const error = await new Promise<ServiceError>((resolve, reject) => {
      client.accept({ message: "", signature: "0x" }, new Metadata(), { deadline: Date.now() + 5_000 }, (err) =>
        err ? resolve(err) : reject(new Error("expected UNIMPLEMENTED")),
      );
    });
    expect(error.code).toBe(status.UNIMPLEMENTED);
  });
});
