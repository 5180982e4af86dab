/**
 * Where a channel's calls go, from a gRPC target string (the naming grpc-js accepts):
 * "host:port" and "dns:///host:port" are resolved through DNS, and every address the name has gets
 * calls in turn (a Kubernetes headless Service lists its pods this way); "ipv4:a:p,b:p" and
 * "ipv6:[a]:p,[b]:p" name the addresses themselves.
 */
export type ChannelTarget = { kind: "dns"; host: string; port: number } | { kind: "static"; addresses: Address[] };

export interface Address {
  host: string;
  port: number;
}

/** Parses a target, or returns undefined for a form this channel does not speak (unix sockets, xds). */
export function parseTarget(target: string): ChannelTarget | undefined {
  if (target.startsWith("ipv4:") || target.startsWith("ipv6:")) {
    const addresses = target
      .slice(5)
      .split(",")
      .map((entry) => parseHostPort(entry.trim()));
    return addresses.length > 0 && addresses.every((address) => address !== undefined)
      ? { kind: "static", addresses: addresses as Address[] }
      : undefined;
  }
  let rest = target;
  if (rest.startsWith("dns:")) {
    rest = rest.slice(4);
    // "dns://authority/host:port": the authority names a DNS server, which getaddrinfo cannot honour.
    if (rest.startsWith("//")) {
      const slash = rest.indexOf("/", 2);
      if (slash !== 2) return undefined;
      rest = rest.slice(3);
    }
  } else if (/^[a-z][a-z0-9+.-]*:(?!\d)/i.test(rest)) {
    return undefined;
  }
  const address = parseHostPort(rest);
  return address === undefined ? undefined : { kind: "dns", ...address };
}

function parseHostPort(text: string): Address | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]/]+)):(\d{1,5})$/.exec(text);
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65_535) return undefined;
  return { host: match[1] ?? match[2]!, port };
}

/** The "host:port" form used as a connection's key and in the :authority header. */
export function authorityOf(address: Address): string {
  return address.host.includes(":") ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}
