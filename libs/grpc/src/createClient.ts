import {
  credentials,
  InterceptingCall,
  Metadata as GrpcMetadata,
  status,
  type CallOptions,
  type ChannelOptions,
  type Client,
  type Interceptor,
  type InterceptorOptions,
  type Metadata,
  type ServiceError,
  type StatusObject,
} from "@grpc/grpc-js";
import { fromGrpcError } from "@platform/errors";

export interface GrpcClientOptions {
  /** "host:port", or "dns:///name:port" to spread calls over every address the name resolves to. */
  target: string;
  /** Applied to every call that did not set its own deadline. Every cross-process call has one. */
  deadlineMs: number;
  /** How many times an UNAVAILABLE call is tried again (only safe for idempotent reads). */
  unavailableRetries?: number;
}

type ClientConstructor<C extends Client> = new (address: string, creds: ReturnType<typeof credentials.createInsecure>, options?: ChannelOptions) => C;

/** The default deadline of each client createGrpcClient made, for callUnary's direct path. */
const defaultDeadlines = new WeakMap<Client, number>();

/** Creates a generated ts-proto client with round-robin balancing, keepalive and a default deadline. */
export function createGrpcClient<C extends Client>(Constructor: ClientConstructor<C>, options: GrpcClientOptions): C {
  const serviceConfig = {
    loadBalancingConfig: [{ round_robin: {} }],
    methodConfig:
      (options.unavailableRetries ?? 0) > 0
        ? [
            {
              name: [{}],
              retryPolicy: {
                maxAttempts: Math.min(5, 1 + (options.unavailableRetries ?? 0)),
                initialBackoff: "0.05s",
                maxBackoff: "0.5s",
                backoffMultiplier: 2,
                retryableStatusCodes: ["UNAVAILABLE"],
              },
            },
          ]
        : [],
  };
  const client = new Constructor(options.target, credentials.createInsecure(), {
    "grpc.service_config": JSON.stringify(serviceConfig),
    "grpc.enable_retries": 1,
    // Nothing serves channelz here; without it grpc-js keeps no per-call statistics (trackers,
    // timestamps and closures on the channel, subchannel and transport for every call).
    "grpc.enable_channelz": 0,
    "grpc.keepalive_time_ms": 60_000,
    "grpc.keepalive_timeout_ms": 20_000,
    "grpc.dns_min_time_between_resolutions_ms": 5_000,
    // Reconnect quickly after a backend restarts instead of waiting for the default 1-120 s backoff.
    "grpc.initial_reconnect_backoff_ms": 200,
    "grpc.max_reconnect_backoff_ms": 2_000,
    // For calls made other than through callUnary (which applies the deadline itself).
    interceptors: [defaultDeadline(options.deadlineMs)],
  });
  defaultDeadlines.set(client, options.deadlineMs);
  return client;
}

function defaultDeadline(deadlineMs: number): Interceptor {
  return (callOptions: InterceptorOptions, nextCall) => {
    const withDeadline = callOptions.deadline === undefined ? { ...callOptions, deadline: Date.now() + deadlineMs } : callOptions;
    return new InterceptingCall(nextCall(withDeadline));
  };
}

type UnaryMethod<Request, Response> = (
  request: Request,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Response) => void,
) => unknown;

/** What a generated client method carries besides being callable (grpc-js copies its definition onto it). */
interface UnaryMethodDefinition<Request, Response> {
  path?: unknown;
  requestStream?: unknown;
  responseStream?: unknown;
  requestSerialize?: (value: Request) => Buffer;
  responseDeserialize?: (bytes: Buffer) => Response;
}

/**
 * Calls a unary method and resolves with its response; rejects with the AppError the service threw
 * (or UNAVAILABLE / UPSTREAM_TIMEOUT for transport failures), never with a raw grpc-js error.
 *
 * On a client from createGrpcClient the call goes straight to the client's channel (which keeps
 * balancing, retries and deadlines exactly as configured): grpc-js's generic client layer in
 * between (a call object that is an EventEmitter, the interceptor chain, a captured stack trace per
 * call) cost about 14 % of a call's client-side CPU and adds nothing a unary call needs here.
 */
export function callUnary<Request, Response>(
  client: Client,
  method: UnaryMethod<Request, Response>,
  request: Request,
  metadata: Metadata,
  options: Partial<CallOptions> = {},
): Promise<Response> {
  const deadlineMs = defaultDeadlines.get(client);
  const definition = method as unknown as UnaryMethodDefinition<Request, Response>;
  const direct =
    deadlineMs !== undefined &&
    typeof definition.path === "string" &&
    definition.requestStream === false &&
    definition.responseStream === false &&
    typeof definition.requestSerialize === "function" &&
    typeof definition.responseDeserialize === "function" &&
    Object.keys(options).every((name) => name === "deadline");
  if (!direct) {
    return new Promise((resolve, reject) => {
      method.call(client, request, metadata, options, (error, response) => {
        if (error) reject(fromGrpcError(error));
        else resolve(response);
      });
    });
  }
  return callOnChannel(client, definition as Required<UnaryMethodDefinition<Request, Response>> & { path: string }, request, metadata, options.deadline ?? Date.now() + deadlineMs);
}

/** A unary call on the client's channel, with the outcomes grpc-js's own unary client gives. */
function callOnChannel<Request, Response>(
  client: Client,
  definition: { path: string; requestSerialize: (value: Request) => Buffer; responseDeserialize: (bytes: Buffer) => Response },
  request: Request,
  metadata: Metadata,
  deadline: NonNullable<CallOptions["deadline"]>,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const fail = (outcome: StatusObject) => reject(fromGrpcError(Object.assign(new Error(`${outcome.code} ${status[outcome.code]}: ${outcome.details}`), outcome)));
    let bytes: Buffer;
    try {
      bytes = definition.requestSerialize(request);
    } catch (error) {
      fail({ code: status.INTERNAL, details: `Request message serialization failure: ${error instanceof Error ? error.message : String(error)}`, metadata: new GrpcMetadata() });
      return;
    }
    const call = client.getChannel().createCall(definition.path, deadline, undefined, null, undefined);
    let response: { value: Response } | undefined;
    let failure: StatusObject | undefined;
    let settled = false;
    call.start(metadata, {
      onReceiveMetadata: () => undefined,
      onReceiveMessage: (message: Buffer) => {
        if (response !== undefined || failure !== undefined) {
          call.cancelWithStatus(status.UNIMPLEMENTED, "Too many responses received");
          return;
        }
        try {
          response = { value: definition.responseDeserialize(message) };
        } catch (error) {
          failure = { code: status.INTERNAL, details: `Response message parsing error: ${error instanceof Error ? error.message : String(error)}`, metadata: new GrpcMetadata() };
          call.cancelWithStatus(failure.code, failure.details);
        }
      },
      onReceiveStatus: (received: StatusObject) => {
        if (settled) return;
        settled = true;
        const outcome = failure ?? received;
        if (outcome.code !== status.OK) fail(outcome);
        else if (response === undefined) fail({ code: status.UNIMPLEMENTED, details: "No message received", metadata: outcome.metadata });
        else resolve(response.value);
      },
    });
    call.startRead();
    call.sendMessageWithContext({}, bytes);
    call.halfClose();
  });
}

export { status };
