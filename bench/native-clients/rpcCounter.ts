import { importDependencyOf } from "./importDependency.js";

interface ServerSocket {
  on(event: "message", listener: (data: Buffer) => void): void;
  on(event: "close", listener: () => void): void;
  send(data: string): void;
  close(): void;
}
interface Upstream extends ServerSocket {
  once(event: "open", listener: () => void): void;
}
interface WsModule {
  WebSocket: new (url: string) => Upstream;
  WebSocketServer: new (options: {
    host: string;
    port: number;
  }) => {
    on(event: "connection", listener: (socket: ServerSocket) => void): void;
    once(event: "listening", listener: () => void): void;
    address(): { port: number };
    close(): void;
  };
}

/** Per JSON-RPC method: how many requests, and the milliseconds from request to answer, summed. */
export type MethodCounts = Map<string, { calls: number; ms: number }>;

export interface RpcCounter {
  url: string;
  /** The counts since the last reset. */
  take(): MethodCounts;
  close(): void;
}

/**
 * A WebSocket relay in front of the node that counts the JSON-RPC requests going through it and how
 * long each waits for its answer: what a client asks the node per block. Used in an unmeasured pass.
 */
export async function startRpcCounter(targetUrl: string): Promise<RpcCounter> {
  const ws = await importDependencyOf<WsModule>(["@polkadot/api", "@polkadot/rpc-provider", "@polkadot/x-ws", "ws"]);
  const server = new ws.WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", resolve));
  let counts: MethodCounts = new Map();
  server.on("connection", (client) => {
    const upstream = new ws.WebSocket(targetUrl);
    const pending: string[] = [];
    const inFlight = new Map<string | number, { method: string; started: number }>();
    let open = false;
    upstream.once("open", () => {
      open = true;
      for (const message of pending.splice(0)) upstream.send(message);
    });
    client.on("message", (data) => {
      const text = data.toString("utf8");
      const message = JSON.parse(text) as { id?: string | number; method?: string };
      if (message.method !== undefined && message.id !== undefined)
        inFlight.set(message.id, { method: message.method, started: performance.now() });
      if (open) upstream.send(text);
      else pending.push(text);
    });
    upstream.on("message", (data) => {
      const text = data.toString("utf8");
      const message = JSON.parse(text) as { id?: string | number };
      const request = message.id === undefined ? undefined : inFlight.get(message.id);
      if (request !== undefined && message.id !== undefined) {
        inFlight.delete(message.id);
        const entry = counts.get(request.method) ?? { calls: 0, ms: 0 };
        entry.calls++;
        entry.ms += performance.now() - request.started;
        counts.set(request.method, entry);
      }
      client.send(text);
    });
    client.on("close", () => upstream.close());
    upstream.on("close", () => client.close());
  });
  return {
    url: `ws://127.0.0.1:${server.address().port}`,
    take() {
      const taken = counts;
      counts = new Map();
      return taken;
    },
    close: () => server.close(),
  };
}
