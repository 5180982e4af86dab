import { BlockList, isIPv4, isIPv6 } from "node:net";

/** The address ranges of the proxies whose X-Forwarded-For entries the gateway believes. */
export interface TrustedProxies {
  /** Whether a plain address (no brackets, port or zone) is one of the trusted proxies. */
  has(address: string): boolean;
}

/** No proxy trusted: every request's client is its connection's peer. */
export const NO_TRUSTED_PROXIES: TrustedProxies = { has: () => false };

/**
 * Parses `TRUST_PROXY_CIDRS`: comma-separated IPv4 and IPv6 ranges (`10.244.0.0/16`,
 * `fd00:10:244::/56`; a bare address is its own /32 or /128). Throws an Error naming the first
 * entry that is not a range, so the configuration check can say which.
 */
export function parseTrustedProxies(text: string): TrustedProxies {
  const list = new BlockList();
  for (const entry of text.split(",").map((item) => item.trim())) {
    if (entry === "") continue;
    const [address = "", bits, extra] = entry.split("/");
    const type = isIPv4(address) ? "ipv4" : isIPv6(address) ? "ipv6" : undefined;
    const max = type === "ipv4" ? 32 : 128;
    const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN;
    if (type === undefined || extra !== undefined || !(prefix >= 0 && prefix <= max))
      throw new Error(`"${entry}" is not an IPv4 or IPv6 CIDR range (e.g. 10.244.0.0/16, fd00:10:244::/56)`);
    list.addSubnet(address, prefix, type);
  }
  return {
    has(text) {
      // A link-local address's zone (`%eth0`) names an interface, not a different host.
      const address = text.split("%")[0]!;
      const type = isIPv4(address) ? "ipv4" : isIPv6(address) ? "ipv6" : undefined;
      return type !== undefined && list.check(address, type);
    },
  };
}
