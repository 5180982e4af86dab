import {
  credentials,
  InterceptingCall,
  status,
  type CallOptions,
  type ChannelOptions,
  type Client,
  type Interceptor,
  type InterceptorOptions,
  type Metadata,
  type ServiceError,
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
  return new Constructor(options.target, credentials.createInsecure(), {
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
    interceptors: [defaultDeadline(options.deadlineMs)],
  });
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

/**
 * Calls a unary method and resolves with its response; rejects with the AppError the service threw
 * (or UNAVAILABLE / UPSTREAM_TIMEOUT for transport failures), never with a raw grpc-js error.
 */
export function callUnary<Request, Response>(
  client: Client,
  method: UnaryMethod<Request, Response>,
  request: Request,
  metadata: Metadata,
  options: Partial<CallOptions> = {},
): Promise<Response> {
  return new Promise((resolve, reject) => {
    method.call(client, request, metadata, options, (error, response) => {
      if (error) reject(fromGrpcError(error));
      else resolve(response);
    });
  });
}

export { status };
