import { Metadata, makeGenericClientConstructor, status } from "@grpc/grpc-js";
import { AppError, unavailable } from "@platform/errors";
import { createLogger } from "@platform/log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answeredByDeadline } from "./answeredByDeadline.js";
import type { UnaryCallHandler } from "./checkedHandler.js";
import { createHealthChecker } from "./checkHealth.js";
import { callUnary, createGrpcClient } from "./createClient.js";
import { jsonUnaryService } from "./jsonUnaryService.js";
import { type RunningGrpcServer, startGrpcServer } from "./startGrpcServer.js";
import { unaryHandler } from "./unaryHandler.js";

// A real service over real HTTP/2, with JSON on the wire so this library's test does not depend on
// generated code. The generated services are exercised in libs/proto and the services' own tests.
interface EchoRequest {
  text: string;
  delayMs?: number;
  failTimes?: number;
  key?: string;
}
const echoDefinition = jsonUnaryService({ echo: "/test.Echo/Echo" });
const EchoClient = makeGenericClientConstructor(echoDefinition, "Echo");
const boundedDefinition = jsonUnaryService({ echo: "/test.Bounded/Echo" });
const BoundedClient = makeGenericClientConstructor(boundedDefinition, "Bounded");
type EchoClientType = InstanceType<typeof EchoClient> & {
  echo: Parameters<typeof callUnary<EchoRequest, { text: string }>>[1];
};

const log = createLogger({ service: "grpc-test", level: "silent" });
const attempts = new Map<string, number>();
let server: RunningGrpcServer;

beforeAll(async () => {
  const echo = unaryHandler<EchoRequest, { text: string }>(log, "Echo", async (request) => {
    const seen = (attempts.get(request.key ?? "") ?? 0) + 1;
    attempts.set(request.key ?? "", seen);
    if (request.failTimes && seen <= request.failTimes) throw unavailable("WARMING_UP", "try again");
    if (request.delayMs) await new Promise((resolve) => setTimeout(resolve, request.delayMs));
    if (request.text === "boom") throw new Error("secret internals");
    if (request.text === "refuse") {
      throw new AppError({
        code: "TC_NOT_ACCEPTED",
        grpcStatus: status.PERMISSION_DENIED,
        detail: "accept the terms, then retry",
        extras: { acceptedVersion: null, currentTcVersion: 2, wallets: ["0xa", "0xb"] },
      });
    }
    return { text: request.text.toUpperCase() };
  });
  server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services: [
      { name: "test.Echo", definition: echoDefinition, implementation: { echo } },
      {
        name: "test.Bounded",
        definition: boundedDefinition,
        implementation: {
          echo: answeredByDeadline(echo as UnaryCallHandler, () => unavailable("STORE_STUCK", "retry shortly")),
        },
      },
    ],
  });
  server.setServing(true);
});

afterAll(async () => {
  await server.shutdown(1_000);
});

function client(options: { deadlineMs: number; unavailableRetries?: number }): EchoClientType {
  return createGrpcClient(EchoClient, { target: `127.0.0.1:${server.port}`, ...options }) as EchoClientType;
}

describe("gRPC server and client helpers", () => {
  it("answers a unary call", async () => {
    const c = client({ deadlineMs: 2_000 });
    await expect(callUnary(c, c.echo, { text: "hi" }, new Metadata())).resolves.toEqual({ text: "HI" });
    c.close();
  });

  it("applies the default deadline: a slow handler gives DEADLINE_EXCEEDED", async () => {
    const c = client({ deadlineMs: 100 });
    const error = await callUnary(c, c.echo, { text: "slow", delayMs: 400 }, new Metadata()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).grpcStatus).toBe(status.DEADLINE_EXCEEDED);
    expect((error as AppError).httpStatus).toBe(504);
    c.close();
  });

  it("retries UNAVAILABLE when configured, and not otherwise", async () => {
    const retrying = client({ deadlineMs: 2_000, unavailableRetries: 3 });
    await expect(
      callUnary(retrying, retrying.echo, { text: "ok", key: "a", failTimes: 2 }, new Metadata()),
    ).resolves.toEqual({ text: "OK" });
    expect(attempts.get("a")).toBe(3);
    retrying.close();

    const plain = client({ deadlineMs: 2_000 });
    const error = (await callUnary(plain, plain.echo, { text: "ok", key: "b", failTimes: 1 }, new Metadata()).catch(
      (e: unknown) => e,
    )) as AppError;
    expect(error.code).toBe("WARMING_UP");
    expect(attempts.get("b")).toBe(1);
    plain.close();
  });

  it("hides unexpected handler errors as INTERNAL", async () => {
    const c = client({ deadlineMs: 2_000 });
    const error = (await callUnary(c, c.echo, { text: "boom" }, new Metadata()).catch((e: unknown) => e)) as AppError;
    expect(error.grpcStatus).toBe(status.INTERNAL);
    expect(error.message).not.toContain("secret");
    c.close();
  });

  it("carries metadata and a caller's own deadline on the direct path, and gives the same answers as grpc-js's client", async () => {
    const c = client({ deadlineMs: 5_000 });
    const shortDeadline = (await callUnary(c, c.echo, { text: "slow", delayMs: 400 }, new Metadata(), {
      deadline: Date.now() + 100,
    }).catch((e: unknown) => e)) as AppError;
    expect(shortDeadline.grpcStatus).toBe(status.DEADLINE_EXCEEDED);
    // The same client used through grpc-js's generic path (an option callUnary does not handle itself).
    const viaClient = (await callUnary(c, c.echo, { text: "boom" }, new Metadata(), { propagate_flags: 0xffff }).catch(
      (e: unknown) => e,
    )) as AppError;
    const direct = (await callUnary(c, c.echo, { text: "boom" }, new Metadata()).catch((e: unknown) => e)) as AppError;
    expect([direct.code, direct.grpcStatus, direct.detail]).toEqual([
      viaClient.code,
      viaClient.grpcStatus,
      viaClient.detail,
    ]);
    // A service's own error, with extension members whose JSON holds commas, arrives whole either way.
    const refusedDirect = (await callUnary(c, c.echo, { text: "refuse" }, new Metadata()).catch(
      (e: unknown) => e,
    )) as AppError;
    const refusedViaClient = (await callUnary(c, c.echo, { text: "refuse" }, new Metadata(), {
      propagate_flags: 0xffff,
    }).catch((e: unknown) => e)) as AppError;
    expect([refusedDirect.code, refusedDirect.httpStatus, refusedDirect.detail, refusedDirect.extras]).toEqual([
      "TC_NOT_ACCEPTED",
      403,
      "accept the terms, then retry",
      { acceptedVersion: null, currentTcVersion: 2, wallets: ["0xa", "0xb"] },
    ]);
    expect([refusedViaClient.code, refusedViaClient.detail, refusedViaClient.extras]).toEqual([
      refusedDirect.code,
      refusedDirect.detail,
      refusedDirect.extras,
    ]);
    await expect(callUnary(c, c.echo, { text: "hi" }, new Metadata(), { propagate_flags: 0xffff })).resolves.toEqual({
      text: "HI",
    });
    // With only a deadline (or nothing), the call goes to the channel, not through the client's method.
    let throughMethod = 0;
    const spied = Object.assign((...args: Parameters<typeof c.echo>) => {
      throughMethod += 1;
      return c.echo(...args);
    }, c.echo);
    await expect(callUnary(c, spied, { text: "hi" }, new Metadata())).resolves.toEqual({ text: "HI" });
    expect(throughMethod).toBe(0);
    await callUnary(c, spied, { text: "hi" }, new Metadata(), { propagate_flags: 0xffff });
    expect(throughMethod).toBe(1);
    c.close();
  });

  it("turns an answer it cannot decode into INTERNAL, and an unreachable backend into UNAVAILABLE", async () => {
    const Broken = makeGenericClientConstructor(
      {
        echo: {
          ...echoDefinition.echo!,
          responseDeserialize: () => {
            throw new Error("not json");
          },
        },
      },
      "Echo",
    );
    const broken = createGrpcClient(Broken, {
      target: `127.0.0.1:${server.port}`,
      deadlineMs: 2_000,
    }) as EchoClientType;
    const error = (await callUnary(broken, broken.echo, { text: "hi" }, new Metadata()).catch(
      (e: unknown) => e,
    )) as AppError;
    expect([error.grpcStatus, error.code]).toEqual([status.INTERNAL, "INTERNAL"]);
    broken.close();
    const nowhere = createGrpcClient(EchoClient, { target: "127.0.0.1:1", deadlineMs: 300 }) as EchoClientType;
    const down = (await callUnary(nowhere, nowhere.echo, { text: "hi" }, new Metadata()).catch(
      (e: unknown) => e,
    )) as AppError;
    expect([503, 504]).toContain(down.httpStatus);
    nowhere.close();
  });

  it("reports health per service and follows setServing", async () => {
    const health = createHealthChecker(`127.0.0.1:${server.port}`);
    expect(await health.check("", 1_000)).toBe("SERVING");
    expect(await health.check("test.Echo", 1_000)).toBe("SERVING");
    expect(await health.check("nope.Service", 1_000)).toBe("SERVICE_UNKNOWN");
    server.setServing(false);
    expect(await health.check("", 1_000)).toBe("NOT_SERVING");
    server.setServing(true);
    health.close();
    const unreachable = createHealthChecker("127.0.0.1:1");
    expect(await unreachable.check("", 300)).toBe("UNREACHABLE");
    unreachable.close();
  });
});

describe("answeredByDeadline", () => {
  it("a handler still busy near the caller's deadline answers its refusal before it, and a prompt one its own answer", async () => {
    const bounded = createGrpcClient(BoundedClient, {
      target: `127.0.0.1:${server.port}`,
      deadlineMs: 800,
    }) as EchoClientType;
    try {
      const startedAt = Date.now();
      const refused = (await callUnary(bounded, bounded.echo, { text: "stuck", delayMs: 3_000 }, new Metadata()).catch(
        (e: unknown) => e,
      )) as AppError;
      const tookMs = Date.now() - startedAt;
      // The refusal, not the caller's DEADLINE_EXCEEDED (which the unbounded service gives above).
      expect([refused.grpcStatus, refused.code, refused.httpStatus]).toEqual([status.UNAVAILABLE, "STORE_STUCK", 503]);
      // A quarter of the 800 ms left (200 ms) before the deadline; the bound is for a loaded machine.
      expect(tookMs).toBeGreaterThanOrEqual(550);
      expect(tookMs).toBeLessThan(800);
      await expect(callUnary(bounded, bounded.echo, { text: "quick" }, new Metadata())).resolves.toEqual({
        text: "QUICK",
      });
      const failed = (await callUnary(bounded, bounded.echo, { text: "refuse" }, new Metadata()).catch(
        (e: unknown) => e,
      )) as AppError;
      expect(failed.code).toBe("TC_NOT_ACCEPTED");
    } finally {
      bounded.close();
    }
  });
});
