import {
  type CallOptions,
  type ChannelOptions,
  type Client,
  credentials,
  Metadata as GrpcMetadata,
  InterceptingCall,
  type Interceptor,
  type InterceptorOptions,
  type Metadata,
  type ServiceError,
  status,
} from "@grpc/grpc-js";
import { type AppError, fromGrpcError } from "@platform/errors";
import { parseTarget } from "./unary/parseTarget.js";
import { createUnaryChannel, type UnaryChannel } from "./unaryChannel.js";

export interface GrpcClientOptions {
  /** "host:port", or "dns:///name:port" to spread calls over every address the name resolves to. */
  target: string;
  /** Applied to every call that did not set its own deadline. Every cross-process call has one. */
  deadlineMs: number;
  /** How many times an UNAVAILABLE call is tried again (only safe for idempotent reads). */
  unavailableRetries?: number;
  /**
   * Unary calls made through callUnary to one backend address in one event-loop turn travel in one
   * stream (CallBatchService, which every server of startGrpcServer serves); on by default.
   */
  batchCalls?: boolean;
  /**
   * TLS to the backends: the certificate authority to trust (`ca`, the system's without), and a
   * client certificate (`cert`, `key`) where they ask for one; plain text without this.
   */
  tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer; servername?: string };
  /** How often a connection with calls open is pinged; 60 s. */
  keepaliveMs?: number;
  /** Connections close after this long without a call and open again on the next; 30 minutes. */
  idleTimeoutMs?: number;
}

type ClientConstructor<C extends Client> = new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
  options?: ChannelOptions,
) => C;

/** What createGrpcClient attached to each client it made, for callUnary's direct path. */
interface DirectPath {
  deadlineMs: number;
  channel: UnaryChannel;
}
const directPaths = new WeakMap<Client, DirectPath>();

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
  const tls = options.tls;
  const channelCredentials = tls
    ? credentials.createSsl(tls.ca ?? null, tls.key ?? null, tls.cert ?? null)
    : credentials.createInsecure();
  const client = new Constructor(options.target, channelCredentials, {
    ...(tls?.servername === undefined ? {} : { "grpc.ssl_target_name_override": tls.servername }),
    ...(options.idleTimeoutMs === undefined ? {} : { "grpc.client_idle_timeout_ms": options.idleTimeoutMs }),
    "grpc.service_config": JSON.stringify(serviceConfig),
    "grpc.enable_retries": 1,
    // Nothing serves channelz here; without it grpc-js keeps no per-call statistics (trackers,
    // timestamps and closures on the channel, subchannel and transport for every call).
    "grpc.enable_channelz": 0,
    "grpc.keepalive_time_ms": options.keepaliveMs ?? 60_000,
    "grpc.keepalive_timeout_ms": 20_000,
    "grpc.dns_min_time_between_resolutions_ms": 5_000,
    // Reconnect quickly after a backend restarts instead of waiting for the default 1-120 s backoff.
    "grpc.initial_reconnect_backoff_ms": 200,
    "grpc.max_reconnect_backoff_ms": 2_000,
    // For calls made other than through callUnary (which applies the deadline itself).
    interceptors: [defaultDeadline(options.deadlineMs)],
  });
  const target = parseTarget(options.target);
  if (target) {
    const channel = createUnaryChannel(target, {
      maxAttempts: Math.min(5, 1 + (options.unavailableRetries ?? 0)),
      batchCalls: options.batchCalls ?? true,
      connection: {
        ...(options.keepaliveMs === undefined ? {} : { keepaliveMs: options.keepaliveMs }),
        ...(tls === undefined ? {} : { tls: { ...tls, ALPNProtocols: ["h2"] } }),
      },
      ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
    });
    directPaths.set(client, { deadlineMs: options.deadlineMs, channel });
    const closeClient = client.close.bind(client);
    client.close = () => {
      channel.close();
      closeClient();
    };
  }
  return client;
}

function defaultDeadline(deadlineMs: number): Interceptor {
  return (callOptions: InterceptorOptions, nextCall) => {
    const withDeadline =
      callOptions.deadline === undefined ? { ...callOptions, deadline: Date.now() + deadlineMs } : callOptions;
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
 * call) costs client-side CPU on every call (bench/grpc-clients measures the clients) and adds
 * nothing a unary call needs here.
 */
export function callUnary<Request, Response>(
  client: Client,
  method: UnaryMethod<Request, Response>,
  request: Request,
  metadata: Metadata,
  options: Partial<CallOptions> = {},
): Promise<Response> {
  const directPath = directPaths.get(client);
  const definition = method as unknown as UnaryMethodDefinition<Request, Response>;
  const direct =
    directPath !== undefined &&
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
  return callDirect(
    directPath.channel,
    definition as Required<UnaryMethodDefinition<Request, Response>> & { path: string },
    request,
    metadata,
    deadlineOf(options.deadline, directPath.deadlineMs),
  );
}

function deadlineOf(deadline: CallOptions["deadline"], defaultMs: number): number {
  if (deadline === undefined) return Date.now() + defaultMs;
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

/** A unary call on the client's lean channel, with the outcomes grpc-js's own unary client gives. */
async function callDirect<Request, Response>(
  channel: UnaryChannel,
  definition: {
    path: string;
    requestSerialize: (value: Request) => Buffer;
    responseDeserialize: (bytes: Buffer) => Response;
  },
  request: Request,
  metadata: Metadata,
  deadline: number,
): Promise<Response> {
  let bytes: Buffer;
  try {
    bytes = definition.requestSerialize(request);
  } catch (error) {
    throw failed(status.INTERNAL, `Request message serialization failure: ${messageOf(error)}`);
  }
  const result = await channel.call(definition.path, bytes, metadata, deadline);
  if (!result.ok) throw failed(result.status.code, result.status.details, result.status.metadata);
  try {
    return definition.responseDeserialize(result.message);
  } catch (error) {
    throw failed(status.INTERNAL, `Response message parsing error: ${messageOf(error)}`);
  }
}

function failed(code: status, details: string, metadata: Metadata = new GrpcMetadata()): AppError {
  return fromGrpcError(Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata }));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export { status };
