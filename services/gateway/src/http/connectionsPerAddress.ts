import type { Server } from "node:http";
import type { Socket } from "node:net";

/**
 * Caps the connections one peer address holds at once: one more is closed as it arrives, with no
 * answer. One client (or one attacker) cannot take the replica's whole HTTP_MAX_CONNECTIONS, and
 * what one address can keep in flight at POST /auth (whose failures are held back) stays bounded.
 * An IPv6 peer counts per /64 (one subscriber picks any address of its /64). Peers `exempt`
 * (the trusted proxies: a load balancer carries many clients) are not counted.
 */
export function capConnectionsPerAddress(server: Server, cap: number, exempt: (address: string) => boolean): void {
  const open = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || exempt(address)) return;
    const bucket = peerBucket(address);
    const count = open.get(bucket) ?? 0;
    if (count >= cap) {
      socket.destroy();
      return;
    }
    open.set(bucket, count + 1);
    socket.once("close", () => {
      const left = (open.get(bucket) ?? 1) - 1;
      if (left > 0) open.set(bucket, left);
      else open.delete(bucket);
    });
  });
}

/** An IPv4 peer (mapped or not) as itself, an IPv6 peer as its /64. */
export function peerBucket(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  if (mapped !== undefined) return mapped;
  if (!address.includes(":")) return address;
  const bare = address.split("%")[0]!;
  const [head = "", tail] = bare.split("::");
  const front = head === "" ? [] : head.split(":");
  const back = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? front : [...front, ...Array(8 - front.length - back.length).fill("0"), ...back];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}
