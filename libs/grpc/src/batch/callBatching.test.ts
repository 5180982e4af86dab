import { type ClientHttp2Session, connect } from "node:http2";
import {
  Metadata,
  makeGenericClientConstructor,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServiceDefinition,
  type sendUnaryData,
  status,
} from "@grpc/grpc-js";
import { AppError, type ProblemExtras } from "@platform/errors";
import { createLogger } from "@platform/log";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { callUnary, createGrpcClient } from "../createClient.js";
import { jsonUnaryService } from "../jsonUnaryService.js";
import { type RunningGrpcServer, startGrpcServer } from "../startGrpcServer.js";
import type { AttemptOutcome } from "../unary/callAttempt.js";
import { attemptCall } from "../unary/callAttempt.js";
import { frameMessage } from "../unary/grpcFrame.js";
import { unaryHandler } from "../unaryHandler.js";
import { type QueuedCall, RUN_CALLS_PATH } from "./batchAttempt.js";
import { createCallBatcher } from "./callBatcher.js";

// The calls of one turn travel in one CallBatchService stream to real grpc-js servers, and each
// call's outcome is exactly what it would have been as a unary call of its own.
interface Echo {
  text: string;
  delayMs?: number;
  padding?: number;
  fail?: { code: string; extras?: ProblemExtras };
}
interface EchoAnswer {
  text: string;
  padding?: string;
  requestId?: string;
  deadlineInMs: number;
  path: string;
}
const ECHO_PATH = "/test.Echo/Echo";
const definition = jsonUnaryService({ echo: ECHO_PATH });
const log = createLogger({ service: "call-batching-test", level: "silent" });

const echoImplementation = unaryHandler<Echo, EchoAnswer>(log, "Echo", async (request, call) => {
  if (request.delayMs) await new Promise((resolve) => setTimeout(resolve, request.delayMs));
  if (request.fail)
    throw new AppError({
      code: request.fail.code,
      grpcStatus: status.NOT_FOUND,
      detail: `no ${request.text}`,
      extras: request.fail.extras ?? {},
    });
  const deadline = call.getDeadline();
  return {
    text: request.text,
    requestId: call.metadata.get("x-request-id")[0] as string | undefined,
    deadlineInMs: (deadline instanceof Date ? deadline.getTime() : deadline) - Date.now(),
    path: call.getPath(),
    ...(request.padding ? { padding: "x".repeat(request.padding) } : {}),
  };
});

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function echoServer(registry?: Registry): Promise<RunningGrpcServer> {
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services: [{ name: "test.Echo", definition, implementation: { echo: echoImplementation } }],
    ...(registry ? { registry } : {}),
  });
  server.setServing(true);
  cleanups.push(() => server.shutdown(100));
  return server;
}

/** A session whose streams are counted by path, so a test sees how the calls travelled. */
async function countingSession(port: number): Promise<{ session: ClientHttp2Session; streams: string[] }> {
  const session = connect(`http://127.0.0.1:${port}`);
  await new Promise<void>((resolve, reject) => {
    session.once("connect", () => resolve());
    session.once("error", reject);
  });
  cleanups.push(() => void session.close());
  const streams: string[] = [];
  const request = session.request.bind(session);
  session.request = ((headers, options) => {
    streams.push(String(headers?.[":path"]));
    return request(headers, options);
  }) as ClientHttp2Session["request"];
  return { session, streams };
}

function batcherOn(session: ClientHttp2Session, maxReceiveBytes = 4 * 1024 * 1024) {
  return createCallBatcher({
    session: () => session,
    maxReceiveBytes,
    sendOne: (on, call) =>
      attemptCall(
        on,
        {
          ...call.metadata.toHttp2Headers(),
          ":method": "POST",
          ":path": call.path,
          "content-type": "application/grpc",
          te: "trailers",
        },
        frameMessage(call.message),
        call.deadline,
        maxReceiveBytes,
        call.done,
      ),
  });
}

/** Sends a call through the batcher; resolves with its outcome and when it came. */
function send(
  batcher: ReturnType<typeof batcherOn>,
  request: Echo,
  options: { deadlineMs?: number; requestId?: string; path?: string } = {},
) {
  const metadata = new Metadata();
  if (options.requestId) metadata.set("x-request-id", options.requestId);
  return new Promise<{ outcome: AttemptOutcome; at: number }>((resolve) => {
    const call: QueuedCall = {
      path: options.path ?? ECHO_PATH,
      message: definition.echo!.requestSerialize(request),
      metadata,
      deadline: Date.now() + (options.deadlineMs ?? 2_000),
      done: (outcome) => resolve({ outcome, at: Date.now() }),
    };
    batcher.send(call);
  });
}

const answerOf = (outcome: AttemptOutcome) =>
  "message" in outcome ? (definition.echo!.responseDeserialize(outcome.message) as EchoAnswer) : undefined;
const codeOf = (outcome: AttemptOutcome) => ("message" in outcome ? status.OK : outcome.status.code);

describe("call batching: each call of a turn answered on its own", () => {
  it("sends the calls of one turn in one stream, each with its own request, metadata and deadline, and answers each", async () => {
    const server = await echoServer();
    const { session, streams } = await countingSession(server.port);
    const batcher = batcherOn(session);
    const results = await Promise.all(
      Array.from({ length: 5 }, (_unused, index) =>
        send(batcher, { text: `call ${index}` }, { requestId: `req-${index}`, deadlineMs: 1_000 * (index + 1) }),
      ),
    );
    expect(streams).toEqual([RUN_CALLS_PATH]);
    results.forEach(({ outcome }, index) => {
      const answer = answerOf(outcome);
      expect(answer).toMatchObject({ text: `call ${index}`, requestId: `req-${index}`, path: ECHO_PATH });
      expect(answer!.deadlineInMs).toBeGreaterThan(1_000 * (index + 1) - 500);
      expect(answer!.deadlineInMs).toBeLessThanOrEqual(1_000 * (index + 1));
    });

    // A lone call in its turn is the unary call it is.
    expect(answerOf((await send(batcher, { text: "alone" })).outcome)?.text).toBe("alone");
    expect(streams).toEqual([RUN_CALLS_PATH, ECHO_PATH]);
  });

  it("answers each call as soon as it is done: a slow call does not hold the others", async () => {
    const server = await echoServer();
    const { session } = await countingSession(server.port);
    const batcher = batcherOn(session);
    const started = Date.now();
    const [fast, slow] = await Promise.all([
      send(batcher, { text: "fast" }),
      send(batcher, { text: "slow", delayMs: 600 }),
    ]);
    expect(answerOf(fast.outcome)?.text).toBe("fast");
    expect(answerOf(slow.outcome)?.text).toBe("slow");
    expect(fast.at - started).toBeLessThan(300);
    expect(slow.at - started).toBeGreaterThanOrEqual(590);
  });

  it("fails only the call that failed, with its status and trailing metadata; a call past its own deadline ends alone", async () => {
    const server = await echoServer();
    const { session } = await countingSession(server.port);
    const batcher = batcherOn(session);
    const [ok, failed, late, unknown] = await Promise.all([
      send(batcher, { text: "ok" }),
      send(batcher, { text: "thing", fail: { code: "THING_NOT_FOUND", extras: { wanted: "a, b", count: 2 } } }),
      send(batcher, { text: "late", delayMs: 500 }, { deadlineMs: 100 }),
      send(batcher, { text: "where" }, { path: "/test.Echo/Missing" }),
    ]);
    expect(answerOf(ok.outcome)?.text).toBe("ok");
    expect(codeOf(failed.outcome)).toBe(status.NOT_FOUND);
    if ("status" in failed.outcome) {
      expect(failed.outcome.status.details).toBe("no thing");
      expect(failed.outcome.status.metadata.get("x-error-code")).toEqual(["THING_NOT_FOUND"]);
      expect(JSON.parse(String(failed.outcome.status.metadata.get("x-error-extras")[0]))).toEqual({
        wanted: "a, b",
        count: 2,
      });
    }
    expect(codeOf(late.outcome)).toBe(status.DEADLINE_EXCEEDED);
    expect(late.at - ok.at).toBeLessThan(300);
    expect(codeOf(unknown.outcome)).toBe(status.UNIMPLEMENTED);
  });

  it("gives a service's AppError to callUnary's caller intact, and counts batched calls in the server's per-method metrics", async () => {
    const registry = new Registry();
    const server = await echoServer(registry);
    const client = createGrpcClient(EchoClient, { target: `127.0.0.1:${server.port}`, deadlineMs: 2_000 });
    cleanups.push(() => client.close());
    const call = (request: Echo) =>
      callUnary<Echo, EchoAnswer>(client, client.echo as EchoMethod, request, new Metadata());
    const settled = await Promise.allSettled([
      call({ text: "a" }),
      call({ text: "b" }),
      call({ text: "gone", fail: { code: "GONE", extras: { since: "1, 2" } } }),
    ]);
    expect(
      settled.slice(0, 2).map((result) => (result.status === "fulfilled" ? result.value.text : undefined)),
    ).toEqual(["a", "b"]);
    const rejected = settled[2];
    expect(rejected?.status).toBe("rejected");
    if (rejected?.status === "rejected") {
      expect(rejected.reason).toBeInstanceOf(AppError);
      expect(rejected.reason).toMatchObject({ code: "GONE", grpcStatus: status.NOT_FOUND, extras: { since: "1, 2" } });
    }
    const handled = await registry.getSingleMetric("grpc_server_handled_total")!.get();
    const count = (code: string) =>
      handled.values.find((value) => value.labels.grpc_method === "echo" && value.labels.grpc_code === code)?.value;
    expect(count("OK")).toBe(2);
    expect(count("NOT_FOUND")).toBe(1);
  });
});

describe("call batching: servers without batches, lost connections, large and failing answers", () => {
  it("sends the calls one by one to a server that does not serve batches, none of them lost or run twice", async () => {
    // A plain grpc-js server with the Echo service only: RunCalls is UNIMPLEMENTED there.
    let runs = 0;
    const plain = new Server();
    plain.addService(definition, {
      echo: (call: ServerUnaryCall<Echo, EchoAnswer>, callback: sendUnaryData<EchoAnswer>) => {
        runs += 1;
        callback(null, { text: call.request.text, deadlineInMs: 0, path: call.getPath() });
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      plain.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    cleanups.push(() => void plain.forceShutdown());
    const client = createGrpcClient(EchoClient, { target: `127.0.0.1:${port}`, deadlineMs: 2_000 });
    cleanups.push(() => client.close());
    const call = (text: string) =>
      callUnary<Echo, EchoAnswer>(client, client.echo as EchoMethod, { text }, new Metadata());
    expect((await Promise.all(["a", "b", "c"].map(call))).map((answer) => answer.text)).toEqual(["a", "b", "c"]);
    expect((await Promise.all(["d", "e"].map(call))).map((answer) => answer.text)).toEqual(["d", "e"]);
    expect(runs).toBe(5);
  });

  it("fails every call of a batch whose connection is lost as UNAVAILABLE", async () => {
    const server = await echoServer();
    const { session } = await countingSession(server.port);
    const batcher = batcherOn(session);
    const pending = Promise.all([
      send(batcher, { text: "a", delayMs: 1_000 }),
      send(batcher, { text: "b", delayMs: 1_000 }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    session.destroy();
    const outcomes = await pending;
    expect(outcomes.map(({ outcome }) => codeOf(outcome))).toEqual([status.UNAVAILABLE, status.UNAVAILABLE]);
  });

  it("sends outcomes of over 1 MiB in one turn as several messages, and every call gets its own", async () => {
    const server = await echoServer();
    const { session } = await countingSession(server.port);
    const batcher = batcherOn(session);
    const results = await Promise.all(["a", "b", "c", "d"].map((text) => send(batcher, { text, padding: 600_000 })));
    expect(results.map(({ outcome }) => answerOf(outcome)?.text)).toEqual(["a", "b", "c", "d"]);
    expect(results.every(({ outcome }) => answerOf(outcome)?.padding?.length === 600_000)).toBe(true);
    // The connection and the server go on serving.
    expect(answerOf((await send(batcher, { text: "after" })).outcome)?.text).toBe("after");
  });

  it("fails only the call whose handler throws before answering", async () => {
    const throwing: ServiceDefinition = { boom: { ...definition.echo!, path: "/test.Boom/Boom" } };
    const server = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      services: [
        { name: "test.Echo", definition, implementation: { echo: echoImplementation } },
        {
          name: "test.Boom",
          definition: throwing,
          implementation: {
            boom: () => {
              throw new Error("handler bug");
            },
          },
        },
      ],
    });
    server.setServing(true);
    cleanups.push(() => server.shutdown(100));
    const { session } = await countingSession(server.port);
    const batcher = batcherOn(session);
    const [ok, boom] = await Promise.all([
      send(batcher, { text: "fine" }),
      send(batcher, { text: "x" }, { path: "/test.Boom/Boom" }),
    ]);
    expect(answerOf(ok.outcome)?.text).toBe("fine");
    expect(codeOf(boom.outcome)).toBe(status.INTERNAL);
  });

  it("refuses an answer over the size limit for that call only", async () => {
    const server = await echoServer();
    const { session } = await countingSession(server.port);
    const batcher = batcherOn(session, 150);
    const [small, big] = await Promise.all([send(batcher, { text: "s" }), send(batcher, { text: "x".repeat(500) })]);
    expect(codeOf(small.outcome)).toBe(status.OK);
    expect(codeOf(big.outcome)).toBe(status.RESOURCE_EXHAUSTED);
  });
});

/** A grpc-js client class for the Echo definition, as generated clients are. */
const EchoClient = makeGenericClientConstructor(definition, "test.Echo");
type EchoMethod = Parameters<typeof callUnary<Echo, EchoAnswer>>[1];
