import {
  type Endpoint,
  type LabelSelector,
  type NetworkPolicyObject,
  type PodEndpoint,
  selectorMatches,
} from "../netpol.js";
import { mountedConfigFile, resolveEnv } from "./containerConfig.js";
import { type Container, type DeploymentView, id, nsOf, type RuleContext } from "./ruleContext.js";

/** Parses `dns:///name.ns.svc.cluster.local:port` (and `dns:name…`) gRPC targets. */
export function parseGrpcTarget(target: string): { service: string; namespace: string; port: number } | undefined {
  const match = /^dns:(?:\/\/[^/]*\/)?([a-z0-9-]+)\.([a-z0-9-]+)\.svc\.cluster\.local:(\d+)$/.exec(target);
  if (!match) return undefined;
  return { service: match[1]!, namespace: match[2]!, port: Number(match[3]) };
}

function hostPortsOf(value: string, defaultPort: number): number[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      try {
        const url = new URL(item.includes("://") ? item : `tcp://${item}`);
        return url.port ? Number(url.port) : defaultPort;
      } catch {
        return defaultPort;
      }
    });
}

/** Port a client of this URL scheme connects to when the URL names none. */
const DEFAULT_PORTS: Record<string, number> = {
  "redis:": 6379,
  "rediss:": 6379,
  "nats:": 4222,
  "tls:": 4222,
  "http:": 80,
  "https:": 443,
};

// ---- Network: default deny, DNS, each gRPC caller reaches its backend and nothing else does.
export function checkNetwork(context: RuleContext): void {
  const networkPolicies = context.byKind("NetworkPolicy") as unknown as NetworkPolicyObject[];
  checkPolicyBaseline(context, networkPolicies);
  const calls = checkWorkloadConnections(context, networkPolicies);
  checkGrpcExposure(context, calls);
  checkDatabases(context);
}

/** A default-deny policy exists, and no egress rule still points at a placeholder range. */
function checkPolicyBaseline(context: RuleContext, networkPolicies: NetworkPolicyObject[]): void {
  const { options, report } = context;
  const selectsAll = (selector: LabelSelector | undefined) =>
    Object.keys(selector?.matchLabels ?? {}).length === 0 && (selector?.matchExpressions ?? []).length === 0;
  const denyAll = networkPolicies.some((policy) => {
    const types = policy.spec?.policyTypes ?? [];
    return (
      selectsAll(policy.spec?.podSelector) &&
      types.includes("Ingress") &&
      types.includes("Egress") &&
      !policy.spec?.ingress &&
      !policy.spec?.egress
    );
  });
  if (!denyAll)
    report(
      "network",
      "NetworkPolicy/*",
      "needs a default-deny policy (podSelector: {}, policyTypes Ingress and Egress, no rules)",
    );
  for (const policy of networkPolicies) {
    for (const rule of policy.spec?.egress ?? []) {
      for (const peer of rule.to ?? []) {
        if (peer.ipBlock && options.unconfiguredCidrs.includes(peer.ipBlock.cidr)) {
          report(
            "network",
            `NetworkPolicy/${policy.metadata.name}`,
            `still points at the placeholder ${peer.ipBlock.cidr}; the overlay must set the real range`,
          );
        }
      }
    }
  }
}

/**
 * What each workload must reach: DNS, Prometheus scraping it, the backends its gRPC targets name and
 * its external dependencies. Returns who calls whom (caller → callees, by Deployment name).
 */
function checkWorkloadConnections(
  context: RuleContext,
  networkPolicies: NetworkPolicyObject[],
): Map<string, Set<string>> {
  const { manifests, options, report, workloads, policies } = context;
  const dns: PodEndpoint = {
    kind: "pod",
    namespace: "kube-system",
    namespaceLabels: { "kubernetes.io/metadata.name": "kube-system" },
    labels: { "k8s-app": "kube-dns" },
    namedPorts: {},
  };
  const prometheus: PodEndpoint = {
    kind: "pod",
    namespace: options.monitoringNamespace,
    namespaceLabels: { "kubernetes.io/metadata.name": options.monitoringNamespace },
    labels: { "app.kubernetes.io/name": "prometheus" },
    namedPorts: {},
  };
  const calls = new Map<string, Set<string>>(); // caller → callees (Deployment names)

  for (const source of workloads) {
    const object = id(source.manifest);
    if (!policies.allows(source.endpoint, dns, 53, "UDP") || !policies.allows(source.endpoint, dns, 53, "TCP")) {
      report("network", object, "cannot reach kube-dns on port 53 (UDP and TCP)");
    }
    const scrapePort = Number(source.podAnnotations["prometheus.io/port"]);
    if (scrapePort && !policies.allows(prometheus, source.endpoint, scrapePort)) {
      report(
        "network",
        object,
        `Prometheus (namespace ${options.monitoringNamespace}) cannot scrape port ${scrapePort}`,
      );
    }
    for (const container of source.containers) {
      const env = resolveEnv(container, manifests, source.namespace);
      checkGrpcTargets(context, source, env, calls);
      checkDatabaseAddresses(context, source, env);
      checkExternalDependencies(context, networkPolicies, source, container, env);
    }
  }
  return calls;
}

/** Each `*_GRPC_TARGET` names a headless Service and port that exist, and the policies let the call through. */
function checkGrpcTargets(
  context: RuleContext,
  source: DeploymentView,
  env: Record<string, string>,
  calls: Map<string, Set<string>>,
): void {
  const { options, report, deployments, services, policies } = context;
  const object = id(source.manifest);
  for (const [name, value] of Object.entries(env)) {
    if (!name.endsWith("_GRPC_TARGET")) continue;
    const target = parseGrpcTarget(value);
    if (!target) {
      report("grpc", object, `${name}=${value} must be dns:///<service>.<namespace>.svc.cluster.local:<port>`);
      continue;
    }
    const service = services.find(
      (candidate) =>
        candidate.metadata.name === target.service && nsOf(candidate, options.namespace) === target.namespace,
    );
    const serviceSpec = (service?.spec ?? {}) as {
      clusterIP?: string;
      selector?: Record<string, string>;
      ports?: Array<{ port: number }>;
    };
    if (!service) {
      report(
        "grpc",
        object,
        `${name} names Service ${target.service} in namespace ${target.namespace}, which does not exist`,
      );
      continue;
    }
    if (serviceSpec.clusterIP !== "None")
      report(
        "grpc",
        object,
        `${name} targets Service ${target.service}, which is not headless: calls would pin to one pod`,
      );
    if (!(serviceSpec.ports ?? []).some((port) => port.port === target.port))
      report("grpc", object, `${name} uses port ${target.port}, which Service ${target.service} does not have`);
    const selector = serviceSpec.selector;
    for (const destination of deployments.filter(
      (deployment) =>
        selector !== undefined &&
        deployment.namespace === target.namespace &&
        selectorMatches({ matchLabels: selector }, deployment.podLabels),
    )) {
      calls.set(source.name, (calls.get(source.name) ?? new Set()).add(destination.name));
      if (!policies.allows(source.endpoint, destination.endpoint, target.port)) {
        report(
          "network",
          object,
          `NetworkPolicies block ${name}: ${source.name} cannot reach ${destination.name} on ${target.port}`,
        );
      }
    }
  }
}

/** External dependencies named in the configuration are reachable on their ports. */
function checkExternalDependencies(
  context: RuleContext,
  networkPolicies: NetworkPolicyObject[],
  source: DeploymentView,
  container: Container,
  env: Record<string, string>,
): void {
  const { manifests, report, policies } = context;
  const object = id(source.manifest);
  const external: Array<[string, number[]]> = [];
  if (env.REDIS_URL)
    external.push(["REDIS_URL", hostPortsOf(env.REDIS_URL, DEFAULT_PORTS[safeProtocol(env.REDIS_URL)] ?? 6379)]);
  if (env.NATS_URL)
    external.push(["NATS_URL", hostPortsOf(env.NATS_URL, DEFAULT_PORTS[safeProtocol(env.NATS_URL)] ?? 4222)]);
  if (env.KAFKA_BROKERS) external.push(["KAFKA_BROKERS", hostPortsOf(env.KAFKA_BROKERS, 9092)]);
  // A PostgreSQL outside the cluster (a managed service) is an external dependency like the others.
  for (const address of databaseAddresses(env))
    if (!parseServiceHost(address.host)) external.push([address.what, [address.port]]);
  if (env.CHAINS_FILE) {
    const chains = mountedConfigFile(source, container, env.CHAINS_FILE, manifests, source.namespace);
    try {
      const parsed = JSON.parse(chains ?? "{}") as { chains?: Array<{ rpcUrl?: string }> };
      const ports = (parsed.chains ?? [])
        .map((chain) => chain.rpcUrl ?? "")
        .filter(Boolean)
        .map((url) => hostPortsOf(url, DEFAULT_PORTS[safeProtocol(url)] ?? 443)[0]!);
      external.push(["CHAINS_FILE rpcUrl", [...new Set(ports)]]);
    } catch {
      // Reported with the ConfigMap.
    }
  }
  for (const [what, ports] of external) {
    for (const port of ports) {
      const reachable = networkPolicies.some((policy) =>
        (policy.spec?.egress ?? []).some(
          (rule) =>
            // Probe with the block's own network address: inside it, and outside its exceptions unless all of it is excepted.
            (rule.to ?? []).some(
              (peer) =>
                peer.ipBlock &&
                policies.allows(source.endpoint, { kind: "external", ip: peer.ipBlock.cidr.split("/")[0]! }, port),
            ) && selectorMatches(policy.spec?.podSelector ?? {}, source.podLabels),
        ),
      );
      if (!reachable) report("network", object, `no egress policy lets it reach ${what} on port ${port}`);
    }
  }
}

/** `<service>.<namespace>.svc[.cluster.local]`: a Service of the cluster. */
function parseServiceHost(host: string): { service: string; namespace: string } | undefined {
  const match = /^([a-z0-9-]+)\.([a-z0-9-]+)\.svc(?:\.cluster\.local)?\.?$/.exec(host);
  return match ? { service: match[1]!, namespace: match[2]! } : undefined;
}

/** The PostgreSQL servers a container's configuration names: POSTGRES_URL, and PRIMARY_HOST/PORT (replica and backups). */
function databaseAddresses(
  env: Record<string, string>,
): Array<{ what: string; host: string; port: number; url?: URL }> {
  const addresses: Array<{ what: string; host: string; port: number; url?: URL }> = [];
  for (const [name, value] of Object.entries(env)) {
    if (!/^POSTGRES(_[A-Z]+)*_URL$/.test(name)) continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      addresses.push({ what: name, host: "", port: 0 });
      continue;
    }
    addresses.push({ what: name, host: url.hostname, port: url.port ? Number(url.port) : 5432, url });
  }
  if (env.PRIMARY_HOST)
    addresses.push({ what: "PRIMARY_HOST", host: env.PRIMARY_HOST, port: Number(env.PRIMARY_PORT ?? 5432) });
  return addresses;
}

/**
 * Each PostgreSQL address names a Service that exists, on one of its ports, carries no credentials
 * (those come from the role's Secret), and the policies let this workload reach the pods behind it.
 */
function checkDatabaseAddresses(context: RuleContext, source: DeploymentView, env: Record<string, string>): void {
  const { options, report, workloads, services, policies } = context;
  const object = id(source.manifest);
  for (const address of databaseAddresses(env)) {
    if (address.url === undefined && address.what !== "PRIMARY_HOST") {
      report("database", object, `${address.what} is not a URL`);
      continue;
    }
    if (address.url && !/^postgres(ql)?:$/.test(address.url.protocol))
      report("database", object, `${address.what} must be a postgres:// URL`);
    if (address.url && (address.url.username || address.url.password))
      report("database", object, `${address.what} carries credentials; the role and its password come from its Secret`);
    const target = parseServiceHost(address.host);
    if (!target) continue; // outside the cluster: checked with the external dependencies
    const service = services.find(
      (candidate) =>
        candidate.metadata.name === target.service && nsOf(candidate, options.namespace) === target.namespace,
    );
    if (!service) {
      report(
        "database",
        object,
        `${address.what} names Service ${target.service} in namespace ${target.namespace}, which does not exist`,
      );
      continue;
    }
    const spec = (service.spec ?? {}) as {
      selector?: Record<string, string>;
      ports?: Array<{ port: number; targetPort?: number | string }>;
    };
    const port = (spec.ports ?? []).find((candidate) => candidate.port === address.port);
    if (!port) {
      report(
        "database",
        object,
        `${address.what} uses port ${address.port}, which Service ${target.service} does not have`,
      );
      continue;
    }
    const behind = workloads.filter(
      (workload) =>
        spec.selector !== undefined &&
        workload.namespace === target.namespace &&
        (workload.kind === "StatefulSet" || workload.kind === "Deployment") &&
        selectorMatches({ matchLabels: spec.selector }, workload.podLabels),
    );
    for (const destination of behind) {
      const targetPort = port.targetPort ?? port.port;
      const containerPort = typeof targetPort === "number" ? targetPort : destination.endpoint.namedPorts[targetPort];
      if (containerPort === undefined || !policies.allows(source.endpoint, destination.endpoint, containerPort))
        report(
          "network",
          object,
          `NetworkPolicies block ${address.what}: ${source.name} cannot reach ${destination.name} on ${containerPort ?? targetPort}`,
        );
    }
  }
}

/**
 * Database servers accept connections only from their clients: every listed client reaches the
 * port, and no other workload, no pod of another namespace or of no workload, and nothing outside
 * the cluster does.
 */
function checkDatabases(context: RuleContext): void {
  const { options, report, workloads, policies } = context;
  const outsiders: Array<[string, Endpoint]> = [
    ["anyone outside the cluster", { kind: "external", ip: "203.0.113.50" }],
    [
      "pods of namespace default",
      {
        kind: "pod",
        namespace: "default",
        namespaceLabels: { "kubernetes.io/metadata.name": "default" },
        labels: {},
        namedPorts: {},
      },
    ],
    [
      "other pods of its namespace",
      {
        kind: "pod",
        namespace: options.namespace,
        namespaceLabels: { "kubernetes.io/metadata.name": options.namespace },
        labels: { "app.kubernetes.io/name": "some-pod" },
        namedPorts: {},
      },
    ],
  ];
  for (const database of options.databases) {
    const server = workloads.find((workload) => workload.name === database.workload);
    if (!server) {
      report("database", `StatefulSet/${database.workload}`, "is a declared database but no workload has that name");
      continue;
    }
    const object = id(server.manifest);
    for (const client of database.clients)
      if (!workloads.some((workload) => workload.name === client))
        report("database", object, `lists ${client} as a client, but no workload has that name`);
    for (const source of workloads) {
      if (source === server) continue;
      const allowed = policies.allows(source.endpoint, server.endpoint, database.port);
      const client = database.clients.includes(source.name);
      if (allowed && !client)
        report(
          "database",
          object,
          `accepts connections on ${database.port} from ${source.name}, which is not one of its clients`,
        );
      if (!allowed && client)
        report("database", object, `its client ${source.name} cannot reach it on ${database.port}`);
    }
    for (const [who, outsider] of outsiders)
      if (policies.allows(outsider, server.endpoint, database.port))
        report("database", object, `accepts connections on ${database.port} from ${who}`);
  }
}

/**
 * Backends accept gRPC only from the deployables configured to call them; the public entry's HTTP
 * port only from the Ingress controller's namespace (a direct connection could forge the forwarded
 * client address), which must reach it.
 */
function checkGrpcExposure(context: RuleContext, calls: Map<string, Set<string>>): void {
  const { report, deployments, policies, options } = context;
  const internet: Endpoint = { kind: "external", ip: "203.0.113.50" };
  const podIn = (namespace: string): Endpoint => ({
    kind: "pod",
    namespace,
    namespaceLabels: { "kubernetes.io/metadata.name": namespace },
    labels: { "app.kubernetes.io/name": "some-pod" },
    namedPorts: {},
  });
  const ingressController = podIn(options.ingressNamespace);
  for (const destination of deployments) {
    const ports = destination.containers.flatMap((container) => container.ports ?? []);
    const grpc = ports.find((port) => port.name === "grpc")?.containerPort;
    const http = ports.find((port) => port.name === "http")?.containerPort;
    if (http !== undefined) {
      if (!policies.allows(ingressController, destination.endpoint, http)) {
        report(
          "network",
          id(destination.manifest),
          `is the public entry but the Ingress controller (namespace ${options.ingressNamespace}) cannot reach it on ${http}`,
        );
      }
      const elsewhere = [
        ["anyone outside the cluster", internet],
        ["pods of namespace default", podIn("default")],
        ["pods of its own namespace", podIn(options.namespace)],
      ] as const;
      for (const [who, source] of elsewhere) {
        if (policies.allows(source, destination.endpoint, http)) {
          report(
            "network",
            id(destination.manifest),
            `accepts HTTP on ${http} from ${who}, not only the Ingress controller (namespace ${options.ingressNamespace}): a direct client could forge X-Forwarded-For`,
          );
        }
      }
    }
    const ops = ports.find((port) => port.name === "metrics")?.containerPort;
    if (ops !== undefined && policies.allows(internet, destination.endpoint, ops)) {
      report(
        "network",
        id(destination.manifest),
        `serves /metrics and the detailed /readyz on ${ops} to anyone outside the namespace`,
      );
    }
    if (grpc === undefined) continue;
    if (policies.allows(internet, destination.endpoint, grpc))
      report("network", id(destination.manifest), `accepts gRPC on ${grpc} from outside the namespace`);
    for (const source of context.workloads) {
      if (source === destination || calls.get(source.name)?.has(destination.name)) continue;
      if (policies.allows(source.endpoint, destination.endpoint, grpc)) {
        report(
          "network",
          id(destination.manifest),
          `accepts gRPC from ${source.name}, which is not configured to call it`,
        );
      }
    }
  }
}

function safeProtocol(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return "";
  }
}
