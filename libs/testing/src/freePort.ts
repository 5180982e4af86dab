import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/*
 * Why not `listen(0)`: the kernel answers from its ephemeral range (32768–60999 on Linux), the same
 * range every outgoing connection's local port comes from. Between the pick and the server's own
 * bind, a client connection (Kafka, Redis, a fetch) could take the port, and the server then failed
 * with EADDRINUSE (seen once in CI). So ports come from below the ephemeral range, where only
 * explicit binds land, and each test worker walks its own slice of it, so two workers never hand out
 * the same port either.
 */
const LOWEST_PORT = 20_000;
const SLICES = 8;

/** Ports this process already handed out; a pick is never repeated even before its server binds. */
const handedOut = new Set<number>();
/** This process's slice, worked out on the first pick (it reads /proc once). */
let ports: { first: number; size: number } | undefined;
let cursor = 0;

/** A loopback port that is free now, below the ephemeral range, never handed out twice by one process. */
export async function freePort(): Promise<number> {
  if (ports === undefined) {
    ports = slice();
    cursor = Math.floor(Math.random() * ports.size);
  }
  const { first, size } = ports;
  for (let tried = 0; tried < size; tried++) {
    const port = first + (cursor++ % size);
    if (handedOut.has(port)) continue;
    if (await canBind(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`freePort: no free port left in ${first}–${first + size - 1}`);
}

/** This worker's share of the ports below the ephemeral range: by vitest's pool id, else by pid. */
function slice(): { first: number; size: number } {
  const ceiling = ephemeralRangeStart() - 1;
  const size = Math.floor((ceiling - LOWEST_PORT + 1) / SLICES);
  if (size < 64) throw new Error(`freePort: the ephemeral range starts at ${ceiling + 1}, too low to leave test ports`);
  const worker = Number(process.env.VITEST_POOL_ID ?? process.pid);
  const index = Number.isInteger(worker) ? worker % SLICES : 0;
  return { first: LOWEST_PORT + index * size, size };
}

function ephemeralRangeStart(): number {
  try {
    const first = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > LOWEST_PORT ? first : 32_768;
  } catch {
    return 32_768;
  }
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
  });
}
