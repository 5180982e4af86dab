import { Metadata, makeGenericClientConstructor } from "@grpc/grpc-js";
import { unavailable } from "@platform/errors";
import { createLogger } from "@platform/log";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callUnary, createGrpcClient } from "./createClient.js";
import { jsonUnaryService } from "./jsonUnaryService.js";
import { type RunningGrpcServer, startGrpcServer } from "./startGrpcServer.js";
import { unaryHandler } from "./unaryHandler.js";

const definition = jsonUnaryService({ ping: "/test.Ping/Ping" });
const PingClient = makeGenericClientConstructor(definition, "Ping");
type Ping = InstanceType<typeof PingClient> & { ping: Parameters<typeof callUnary<{ fail: boolean }, object>>[1] };

const registry = new Registry();
let server: RunningGrpcServer;

beforeAll(async () => {
  const log = createLogger({ service: "metrics-test", level: "silent" });
  server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    registry,
    services: [
      {
        name: "test.Ping",
        definition,
        implementation: {
          ping: unaryHandler<{ fail: boolean }, object>(log, "Ping", async (request) => {
            if (request.fail) throw unavailable("BUSY", "try later");
            return {};
          }),
        },
      },
    ],
  });
  server.setServing(true);
});

afterAll(() => server.shutdown(1_000));

describe("gRPC server metrics", () => {
  it("counts each answered call by method and code, and times it", async () => {
    const client = createGrpcClient(PingClient, { target: `127.0.0.1:${server.port}`, deadlineMs: 2_000 }) as Ping;
    await callUnary(client, client.ping, { fail: false }, new Metadata());
    await callUnary(client, client.ping, { fail: false }, new Metadata());
    await expect(callUnary(client, client.ping, { fail: true }, new Metadata())).rejects.toMatchObject({
      code: "BUSY",
    });
    client.close();

    const text = await registry.metrics();
    expect(text).toContain('grpc_server_handled_total{grpc_service="test.Ping",grpc_method="ping",grpc_code="OK"} 2');
    expect(text).toContain(
      'grpc_server_handled_total{grpc_service="test.Ping",grpc_method="ping",grpc_code="UNAVAILABLE"} 1',
    );
    expect(text).toMatch(/grpc_server_handling_seconds_count\{grpc_service="test.Ping",grpc_method="ping"\} 3/);
  });
});
