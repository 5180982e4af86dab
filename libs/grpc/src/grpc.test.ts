import { Metadata, makeGenericClientConstructor, status, type ServiceDefinition } from "@grpc/grpc-js";
import { AppError, unavailable } from "@platform/errors";
import { createLogger } from "@platform/log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callUnary, createGrpcClient } from "./createClient.js";
import { createHealthChecker } from "./checkHealth.js";
import { startGrpcServer, type RunningGrpcServer } from "./startGrpcServer.js";
import { unaryHandler } from "./unaryHandler.js";

// A real service over real HTTP/2, with JSON on the wire so this library's test does not depend on
// generated code. The generated services are exercised in libs/proto and the services' own tests.
interface EchoRequest {
  text: string;
  delayMs?: number;
  failTimes?: number;
  key?: string;
}
const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as unknown,
};
const echoDefinition: ServiceDefinition = {
  echo: {
    path: "/test.Echo/Echo",
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
};
const EchoClient = makeGenericClientConstructor(echoDefinition, "Echo");
type EchoClientType = InstanceType<typeof EchoClient> & { echo: Parameters<typeof callUnary<EchoRequest, { text: string }>>[1] };

const log = createLogger({ service: "grpc-test", level: "silent" });
const attempts = new Map<string, number>();
let server: RunningGrpcServer;

beforeAll(async () => {
  server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services: [
      {
        name: "test.Echo",
        definition: echoDefinition,
        implementation: {
          echo: unaryHandler<EchoRequest, { text: string }>(log, "Echo", async (request) => {
            const seen = (attempts.get(request.key ?? "") ?? 0) + 1;
            attempts.set(request.key ?? "", seen);
            if (request.failTimes && seen <= request.failTimes) throw unavailable("WARMING_UP", "try again");
            if (request.delayMs) await new Promise((resolve) => setTimeout(resolve, request.delayMs));
            if (request.text === "boom") throw new Error("secret internals");
            return { text: request.text.toUpperCase() };
          }),
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
    await expect(callUnary(retrying, retrying.echo, { text: "ok", key: "a", failTimes: 2 }, new Metadata())).resolves.toEqual({ text: "OK" });
    expect(attempts.get("a")).toBe(3);
    retrying.close();

    const plain = client({ deadlineMs: 2_000 });
    const error = (await callUnary(plain, plain.echo, { text: "ok", key: "b", failTimes: 1 }, new Metadata()).catch((e: unknown) => e)) as AppError;
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
