import { createHash } from "node:crypto";
import { isIPv4, isIPv6 } from "node:net";

/**
 * The bucket a client address counts in:
 * - IPv4 as is (an IPv4-mapped IPv6 address as its IPv4 form);
 * - IPv6 per /64: one subscriber gets at least a /64 and can pick any of its 2^64 addresses, so
 *   counting whole addresses would give each attempt a fresh counter;
 * - anything else (only a direct gRPC caller can send it: the gateway sends an IP) hashed, so a
 *   caller-controlled string cannot bloat the keyspace.
 */
export function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return mapped;
  if (isIPv4(address)) return address;
  const bare = address.split("%")[0]!;
  if (isIPv6(bare)) return `${ipv6Groups(bare).slice(0, 4).join(":")}::/64`;
  return `h:${createHash("sha256").update(address).digest("hex").slice(0, 32)}`;
}

/** The eight 16-bit groups of an IPv6 address (valid, zone removed), lower-case without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head, tail] = address.includes("::") ? address.split("::") : [address, undefined];
  const groupsOf = (part: string | undefined): string[] => {
    if (part === undefined || part === "") return [];
    return part.split(":").flatMap((group) => {
      if (!group.includes(".")) return [group];
      // An embedded IPv4 tail is two groups.
      const [a, b, c, d] = group.split(".").map(Number) as [number, number, number, number];
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  };
  const front = groupsOf(head);
  const back = groupsOf(tail);
  const zeros = tail === undefined ? [] : Array.from({ length: 8 - front.length - back.length }, () => "0");
  return [...front, ...zeros, ...back].map((group) => parseInt(group, 16).toString(16));
}
