import { EventEmitter } from "node:events";
import {
  type Metadata,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type StatusObject,
  type sendUnaryData,
  status,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import {
  type BatchedCall,
  CallBatchServiceService,
  type CallOutcome,
  type RunCallsRequest,
  type RunCallsResponse,
} from "@platform/proto/rpc/v1/call_batch";
import { entriesOfMetadata, metadataOfEntries } from "./metadataEntries.js";

/** A unary method a batch may name: how to read its request, run it and write its response. */
interface UnaryMethod {
  path: string;
  deserialize(bytes: Buffer): unknown;
  serialize(value: unknown): Buffer;
  run(call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>): void;
}

// Outcomes ready in one turn share a message up to this size; a bigger group is sent in parts.
const MAX_OUTCOME_MESSAGE_BYTES = 1024 * 1024;

/**
 * The CallBatchService of a server: each call of a batch runs through the very implementation
 * (metrics and error mapping included) that serves it as a unary call, so a batched call and a
 * unary one are indistinguishable to the service and in its metrics.
 *
 * A call's deadline (its timeout_ms) is what `getDeadline()` answers; the client enforces it, and
 * the batch stream as a whole carries the latest of its calls' deadlines, so the server stops
 * working on a batch nobody waits for.
 */
export function callBatchService(
  services: Array<{ definition: ServiceDefinition; implementation: UntypedServiceImplementation }>,
): {
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
} {
  const methods = unaryMethodsOf(services);
  return {
    definition: CallBatchServiceService as unknown as ServiceDefinition,
    implementation: {
      runCalls(stream: ServerWritableStream<RunCallsRequest, RunCallsResponse>) {
        runBatch(stream, methods);
      },
    },
  };
}

function unaryMethodsOf(
  services: Array<{ definition: ServiceDefinition; implementation: UntypedServiceImplementation }>,
): Map<string, UnaryMethod> {
  const methods = new Map<string, UnaryMethod>();
  for (const { definition, implementation } of services) {
    for (const [name, spec] of Object.entries(definition)) {
      const handler = implementation[name];
      if (spec.requestStream || spec.responseStream || typeof handler !== "function") continue;
      methods.set(spec.path, {
        path: spec.path,
        deserialize: spec.requestDeserialize,
        serialize: spec.responseSerialize as (value: unknown) => Buffer,
        run: handler as UnaryMethod["run"],
      });
    }
  }
  return methods;
}

function runBatch(
  stream: ServerWritableStream<RunCallsRequest, RunCallsResponse>,
  methods: Map<string, UnaryMethod>,
): void {
  const calls = stream.request.calls;
  const running: Array<ServerUnaryCall<unknown, unknown>> = [];
  let unanswered = calls.length;
  let outbox: CallOutcome[] = [];
  let outboxBytes = 0;
  let flushScheduled = false;
  let ended = false;

  stream.on("cancelled", () => {
    for (const call of running) {
      call.cancelled = true;
      call.emit("cancelled");
    }
  });

  const flush = () => {
    flushScheduled = false;
    if (stream.cancelled || ended) return;
    if (outbox.length > 0) {
      stream.write({ outcomes: outbox });
      outbox = [];
      outboxBytes = 0;
    }
    if (unanswered === 0) {
      ended = true;
      stream.end();
    }
  };

  const answer = (outcome: CallOutcome, bytes: number) => {
    unanswered -= 1;
    outbox.push(outcome);
    outboxBytes += bytes;
    // Outcomes of one turn leave together (their calls' reads came back in one Redis reply).
    if (outboxBytes >= MAX_OUTCOME_MESSAGE_BYTES) flush();
    else if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  };

  if (calls.length === 0) {
    stream.end();
    return;
  }
  const arrivedAt = Date.now();
  for (const batched of calls) {
    const call = startCall(batched, methods, stream, arrivedAt, answer);
    if (call) running.push(call);
  }
}

/** Starts one call of a batch; the outcome goes to `answer` exactly once. */
function startCall(
  batched: BatchedCall,
  methods: Map<string, UnaryMethod>,
  stream: ServerWritableStream<RunCallsRequest, RunCallsResponse>,
  arrivedAt: number,
  answer: (outcome: CallOutcome, bytes: number) => void,
): ServerUnaryCall<unknown, unknown> | undefined {
  const fail = (failure: Partial<StatusObject>) => {
    const outcome = failedOutcome(batched.id, failure);
    answer(outcome, outcome.result?.$case === "status" ? outcome.result.value.details.length + 64 : 64);
  };
  const method = methods.get(batched.method);
  if (!method) {
    fail({ code: status.UNIMPLEMENTED, details: `The server does not implement the method ${batched.method}` });
    return undefined;
  }
  let request: unknown;
  let metadata: Metadata;
  try {
    request = method.deserialize(batched.request);
  } catch (error) {
    fail({
      code: status.INTERNAL,
      details: `Error deserializing request: ${error instanceof Error ? error.message : String(error)}`,
    });
    return undefined;
  }
  try {
    metadata = metadataOfEntries(batched.metadata);
  } catch (error) {
    fail({
      code: status.INTERNAL,
      details: `Invalid metadata: ${error instanceof Error ? error.message : String(error)}`,
    });
    return undefined;
  }
  const call = innerCall(stream, method.path, request, metadata, new Date(arrivedAt + batched.timeoutMs));
  let answered = false;
  const settle: sendUnaryData<unknown> = (error, value) => {
    if (answered) return;
    answered = true;
    if (error) {
      fail(error);
      return;
    }
    let response: Buffer;
    try {
      response = method.serialize(value);
    } catch (serializeError) {
      fail({
        code: status.INTERNAL,
        details: `Error serializing response: ${serializeError instanceof Error ? serializeError.message : String(serializeError)}`,
      });
      return;
    }
    answer({ id: batched.id, result: { $case: "response", value: response } }, response.length + 16);
  };
  try {
    method.run(call, settle);
  } catch (error) {
    // A handler that throws before it answers fails its own call, not the batch.
    settle({
      code: status.INTERNAL,
      details: `Unexpected error in handler: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  return call;
}

function failedOutcome(id: number, failure: Partial<StatusObject>): CallOutcome {
  return {
    id,
    result: {
      $case: "status",
      value: {
        code: failure.code === undefined || failure.code === status.OK ? status.UNKNOWN : failure.code,
        details: failure.details ?? (failure as { message?: string }).message ?? "",
        metadata: failure.metadata ? entriesOfMetadata(failure.metadata) : [],
      },
    },
  };
}

/** What a unary handler sees of its call, for a call that arrived in a batch. */
function innerCall(
  stream: ServerWritableStream<RunCallsRequest, RunCallsResponse>,
  path: string,
  request: unknown,
  metadata: Metadata,
  deadline: Date,
): ServerUnaryCall<unknown, unknown> {
  const call = new EventEmitter() as ServerUnaryCall<unknown, unknown>;
  call.request = request;
  call.cancelled = false;
  Object.assign(call, {
    metadata,
    getPeer: () => stream.getPeer(),
    sendMetadata: () => undefined,
    getDeadline: () => deadline,
    getPath: () => path,
    getHost: () => stream.getHost(),
    getAuthContext: () => stream.getAuthContext(),
    getMetricsRecorder: () => stream.getMetricsRecorder(),
  });
  return call;
}
