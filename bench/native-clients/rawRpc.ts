import { type DependencyChain, importDependencyOf } from "./importDependency.js";

/** The `ws` package, as @polkadot/api's WebSocket shim (@polkadot/x-ws) loads it: node 20 has no global WebSocket. */
const WS_CHAIN: DependencyChain = ["@polkadot/api", "@polkadot/rpc-provider", "@polkadot/x-ws", "ws"];

interface NodeSocket {
  send(data: string): void;
  close(): void;
  once(event: "open", listener: () => void): void;
  once(event: "error", listener: (error: Error) => void): void;
  on(event: "message", listener: (data: Buffer) => void): void;
  on(event: "close", listener: () => void): void;
}
export type WebSocketConstructor = new (url: string) => NodeSocket;

export async function webSocketClass(): Promise<WebSocketConstructor> {
  return (await importDependencyOf<{ WebSocket: WebSocketConstructor }>(WS_CHAIN)).WebSocket;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * The baseline transport: JSON-RPC over one WebSocket with nothing on top (no decoding, no
 * metadata, no caching), the least any client has to pay to get a block's bytes.
 */
export class RawRpc {
  readonly #socket: NodeSocket;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;

  private constructor(socket: NodeSocket) {
    this.#socket = socket;
    socket.on("message", (data) => this.#onMessage(data.toString("utf8")));
    socket.on("close", () => {
      for (const pending of this.#pending.values()) pending.reject(new Error("socket closed"));
      this.#pending.clear();
    });
  }

  static async connect(url: string): Promise<RawRpc> {
    const WebSocket = await webSocketClass();
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    return new RawRpc(socket);
  }

  request<T>(method: string, params: unknown[] = []): Promise<T> {
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  close(): void {
    this.#socket.close();
  }

  #onMessage(text: string): void {
    const message = JSON.parse(text) as { id?: number; result?: unknown; error?: { message: string } };
    if (message.id === undefined) return;
    const pending = this.#pending.get(message.id);
    if (pending === undefined) return;
    this.#pending.delete(message.id);
    if (message.error !== undefined) pending.reject(new Error(message.error.message));
    else pending.resolve(message.result);
  }
}
