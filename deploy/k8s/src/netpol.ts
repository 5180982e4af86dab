/**
 * A small evaluator of NetworkPolicy (networking.k8s.io/v1) semantics, enough to answer "may this
 * pod open a connection to that endpoint?" over rendered manifests: pod and namespace selectors,
 * ipBlocks with exceptions, named and numbered ports, endPort, and policyTypes defaults.
 */

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

interface PolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}

interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}

export interface NetworkPolicyObject {
  metadata: { name: string; namespace?: string };
  spec?: {
    podSelector?: LabelSelector;
    policyTypes?: string[];
    ingress?: Array<{ from?: PolicyPeer[]; ports?: PolicyPort[] }>;
    egress?: Array<{ to?: PolicyPeer[]; ports?: PolicyPort[] }>;
  };
}

/** A pod, by its labels, its namespace (and that namespace's labels) and its named ports. */
export interface PodEndpoint {
  kind: "pod";
  namespace: string;
  namespaceLabels: Record<string, string>;
  labels: Record<string, string>;
  /** Named container ports, for rules that name a port. */
  namedPorts: Record<string, number>;
}

/** Anything outside the cluster's pods, by IPv4 address. */
export interface ExternalEndpoint {
  kind: "external";
  ip: string;
}

export type Endpoint = PodEndpoint | ExternalEndpoint;

export function selectorMatches(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const expression of selector.matchExpressions ?? []) {
    const value = labels[expression.key];
    const values = expression.values ?? [];
    switch (expression.operator) {
      case "In":
        if (value === undefined || !values.includes(value)) return false;
        break;
      case "NotIn":
        if (value !== undefined && values.includes(value)) return false;
        break;
      case "Exists":
        if (value === undefined) return false;
        break;
      case "DoesNotExist":
        if (value !== undefined) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function ipv4ToInt(ip: string): number | undefined {
  const parts = ip.split(".").map(Number);
  if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part < 0 || part > 255)) return undefined;
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

export function cidrContains(cidr: string, ip: string): boolean {
  const [base, bitsText] = cidr.split("/");
  const bits = Number(bitsText ?? "32");
  const network = ipv4ToInt(base ?? "");
  const address = ipv4ToInt(ip);
  if (network === undefined || address === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32) return false;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return (network & mask) === (address & mask);
}

/** Whether `peer`, written in a policy of `policyNamespace`, designates `endpoint`. */
function peerMatches(peer: PolicyPeer, policyNamespace: string, endpoint: Endpoint): boolean {
  if (peer.ipBlock) {
    // ipBlock is meant for addresses outside the cluster; how it treats pod IPs varies by plugin.
    if (endpoint.kind !== "external") return false;
    return (
      cidrContains(peer.ipBlock.cidr, endpoint.ip) &&
      !(peer.ipBlock.except ?? []).some((except) => cidrContains(except, endpoint.ip))
    );
  }
  if (endpoint.kind !== "pod") return false;
  if (peer.namespaceSelector) {
    if (!selectorMatches(peer.namespaceSelector, endpoint.namespaceLabels)) return false;
  } else if (endpoint.namespace !== policyNamespace) {
    return false;
  }
  return selectorMatches(peer.podSelector, endpoint.labels);
}

function portMatches(ports: PolicyPort[] | undefined, port: number, protocol: string, destination: Endpoint): boolean {
  if (!ports || ports.length === 0) return true;
  return ports.some((rule) => {
    if ((rule.protocol ?? "TCP") !== protocol) return false;
    if (rule.port === undefined) return true;
    if (typeof rule.port === "string") {
      // A named port means the destination pod's container port of that name.
      return destination.kind === "pod" && destination.namedPorts[rule.port] === port;
    }
    return rule.endPort === undefined ? rule.port === port : port >= rule.port && port <= rule.endPort;
  });
}

function policyTypes(policy: NetworkPolicyObject): string[] {
  if (policy.spec?.policyTypes && policy.spec.policyTypes.length > 0) return policy.spec.policyTypes;
  return policy.spec?.egress ? ["Ingress", "Egress"] : ["Ingress"];
}

function selects(policy: NetworkPolicyObject, pod: PodEndpoint, defaultNamespace: string): boolean {
  return (
    (policy.metadata.namespace ?? defaultNamespace) === pod.namespace &&
    selectorMatches(policy.spec?.podSelector ?? {}, pod.labels)
  );
}

export class NetworkPolicies {
  constructor(
    private readonly policies: NetworkPolicyObject[],
    private readonly defaultNamespace: string,
  ) {}

  /** Whether `source` may open a connection to `destination` on `port`/`protocol`. */
  allows(source: Endpoint, destination: Endpoint, port: number, protocol = "TCP"): boolean {
    return (
      this.egressAllowed(source, destination, port, protocol) &&
      this.ingressAllowed(source, destination, port, protocol)
    );
  }

  private egressAllowed(source: Endpoint, destination: Endpoint, port: number, protocol: string): boolean {
    if (source.kind !== "pod") return true;
    const applying = this.policies.filter(
      (policy) => policyTypes(policy).includes("Egress") && selects(policy, source, this.defaultNamespace),
    );
    if (applying.length === 0) return true;
    return applying.some((policy) =>
      (policy.spec?.egress ?? []).some(
        (rule) =>
          portMatches(rule.ports, port, protocol, destination) &&
          (!rule.to ||
            rule.to.length === 0 ||
            rule.to.some((peer) => peerMatches(peer, policy.metadata.namespace ?? this.defaultNamespace, destination))),
      ),
    );
  }

  private ingressAllowed(source: Endpoint, destination: Endpoint, port: number, protocol: string): boolean {
    if (destination.kind !== "pod") return true;
    const applying = this.policies.filter(
      (policy) => policyTypes(policy).includes("Ingress") && selects(policy, destination, this.defaultNamespace),
    );
    if (applying.length === 0) return true;
    return applying.some((policy) =>
      (policy.spec?.ingress ?? []).some(
        (rule) =>
          portMatches(rule.ports, port, protocol, destination) &&
          (!rule.from ||
            rule.from.length === 0 ||
            rule.from.some((peer) => peerMatches(peer, policy.metadata.namespace ?? this.defaultNamespace, source))),
      ),
    );
  }
}
