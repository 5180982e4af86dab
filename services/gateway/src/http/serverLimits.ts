import { createServer, type RequestListener, type Server } from "node:http";
import { capConnectionsPerAddress } from "./connectionsPerAddress.js";
import { NO_TRUSTED_PROXIES, type TrustedProxies } from "./trustedProxies.js";

/** The public HTTP server's limits (GatewayConfig's HTTP_* variables). */
export interface ServerLimits {
  /** Connections held at once; one more is closed as it arrives (a replica's sockets and their memory stay bounded). */
  maxConnections: number;
  /** Connections one peer address (an IPv6 /64) holds at once, trusted proxies apart (connectionsPerAddress.ts). */
  maxConnectionsPerAddress: number;
  /** How long a client may take to send its request headers: a slow-headers client holds a connection for no longer. */
  headersTimeoutMs: number;
  /** How long a client may take to send its whole request, body included (not the answer: event streams last). */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open: longer than the load balancer's idle timeout (60 s), so it closes first. */
  keepAliveTimeoutMs: number;
}

export function serverLimitsOf(config: {
  HTTP_MAX_CONNECTIONS: number;
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: number;
  HTTP_HEADERS_TIMEOUT_MS: number;
  HTTP_REQUEST_TIMEOUT_MS: number;
  HTTP_KEEP_ALIVE_TIMEOUT_MS: number;
}): ServerLimits {
  return {
    maxConnections: config.HTTP_MAX_CONNECTIONS,
    maxConnectionsPerAddress: config.HTTP_MAX_CONNECTIONS_PER_ADDRESS,
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
  };
}

/** What node would otherwise leave unbounded or at its own defaults; the gateway's configured values are the same. */
export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  maxConnections: 10_000,
  maxConnectionsPerAddress: 256,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
};

/**
 * An HTTP server with every limit set deliberately. Node checks the header and request timeouts
 * on a timer (30 s by default, so a 10 s headers timeout could take 40 s): it runs at a quarter of
 * the headers timeout here, between 250 ms and 5 s.
 */
export function createLimitedServer(
  listener: RequestListener,
  limits: ServerLimits,
  trustedProxies: TrustedProxies = NO_TRUSTED_PROXIES,
): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(5_000, Math.max(250, Math.floor(limits.headersTimeoutMs / 4))),
    },
    listener,
  );
  server.maxConnections = limits.maxConnections;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  capConnectionsPerAddress(server, limits.maxConnectionsPerAddress, (address) => trustedProxies.has(address));
  return server;
}
