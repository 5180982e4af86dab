import type { Manifest } from "./manifests.js";
import {
  NetworkPolicies,
  selectorMatches,
  type Endpoint,
  type LabelSelector,
  type NetworkPolicyObject,
  type PodEndpoint,
} from "./netpol.js";

/**
 * The project's rules for rendered manifests, beyond what the API schema says: every workload is
 * probed, bounded, hardened, budgeted, autoscaled (or deliberately single), wired to Services and
 * ConfigMaps that exist, reachable exactly by its callers, and carries no secret.
 */

export interface RuleProblem {
  rule: string;
  /** `Kind/name`. */
  object: string;
  message: string;
}

export interface RuleOptions {
  /** Namespace of objects that do not say (kustomize sets one on every object). */
  namespace: string;
  /** Deployments that run exactly one replica, replaced with Recreate, without an HPA. */
  singletons: string[];
  /**
   * Work of which each part must run in exactly one singleton Deployment (the chain-ingestor's
   * sources): containers of `image` run the parts listed in `variable`, or every part when it is unset.
   */
  exclusiveWork: Array<{ image: string; variable: string; values: string[] }>;
  /** Secrets the manifests may reference (created out of band and documented). */
  documentedSecrets: string[];
  /** Ranges that mean "not configured yet"; no overlay may leave them in a NetworkPolicy. */
  unconfiguredCidrs: string[];
  /** The namespace Prometheus scrapes from. */
  monitoringNamespace: string;
  /**
   * The Ingress controller's namespace: the only source that may reach a public entry's HTTP port,
   * since the gateway takes the client address from the forwarded headers of its proxies.
   */
  ingressNamespace: string;
}

// Loosely typed views of the parts the rules read. The schema check has vouched for the shapes of
// valid objects; the rules still read defensively, because they also run on broken input.
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    configMapKeyRef?: { name?: string; key: string; optional?: boolean };
    secretKeyRef?: { name?: string; key: string; optional?: boolean };
    fieldRef?: unknown;
    resourceFieldRef?: unknown;
  };
}
interface Probe {
  httpGet?: { path?: string; port: number | string };
  grpc?: { port: number; service?: string };
  tcpSocket?: { port: number | string };
  exec?: { command?: string[] };
}
interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  privileged?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type?: string };
}
interface Container {
  name: string;
  image?: string;
  ports?: Array<{ name?: string; containerPort: number; protocol?: string }>;
  env?: EnvVar[];
  envFrom?: Array<{
    configMapRef?: { name?: string; optional?: boolean };
    secretRef?: { name?: string; optional?: boolean };
  }>;
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  lifecycle?: { preStop?: { sleep?: { seconds: number }; exec?: { command?: string[] } } };
  securityContext?: SecurityContext;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
}
interface Volume {
  name: string;
  configMap?: { name?: string; items?: Array<{ key: string; path: string }>; optional?: boolean };
  secret?: { secretName?: string; optional?: boolean };
}
interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  securityContext?: SecurityContext & { fsGroup?: number };
  terminationGracePeriodSeconds?: number;
  automountServiceAccountToken?: boolean;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
}
interface DeploymentView {
  name: string;
  namespace: string;
  manifest: Manifest;
  replicas?: number;
  strategyType?: string;
  selector?: LabelSelector;
  podLabels: Record<string, string>;
  podAnnotations: Record<string, string>;
  pod: PodSpec;
  containers: Container[];
  endpoint: PodEndpoint;
}

const id = (manifest: Manifest) => `${manifest.kind}/${manifest.metadata?.name}`;
const nsOf = (manifest: Manifest, fallback: string) => (manifest.metadata?.namespace as string | undefined) ?? fallback;

function deploymentsOf(manifests: Manifest[], namespace: string): DeploymentView[] {
  return manifests
    .filter((manifest) => manifest.kind === "Deployment")
    .map((manifest) => {
      const spec = (manifest.spec ?? {}) as {
        replicas?: number;
        strategy?: { type?: string };
        selector?: LabelSelector;
        template?: {
          metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
          spec?: PodSpec;
        };
      };
      const pod = spec.template?.spec ?? {};
      const containers = pod.containers ?? [];
      const podLabels = spec.template?.metadata?.labels ?? {};
      const ns = nsOf(manifest, namespace);
      const namedPorts: Record<string, number> = {};
      for (const container of containers)
        for (const port of container.ports ?? []) if (port.name) namedPorts[port.name] = port.containerPort;
      return {
        name: manifest.metadata.name,
        namespace: ns,
        manifest,
        ...(spec.replicas !== undefined ? { replicas: spec.replicas } : {}),
        ...(spec.strategy?.type !== undefined ? { strategyType: spec.strategy.type } : {}),
        ...(spec.selector !== undefined ? { selector: spec.selector } : {}),
        podLabels,
        podAnnotations: spec.template?.metadata?.annotations ?? {},
        pod,
        containers,
        endpoint: {
          kind: "pod",
          namespace: ns,
          namespaceLabels: { "kubernetes.io/metadata.name": ns },
          labels: podLabels,
          namedPorts,
        },
      };
    });
}

/** CPU in millicores, memory in bytes; undefined when the quantity cannot be read. */
export function parseQuantity(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number") return value;
  const match = /^([0-9]+(?:\.[0-9]+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(value);
  if (!match) return undefined;
  const units: Record<string, number> = {
    "": 1,
    m: 0.001,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 1024,
    Mi: 1024 ** 2,
    Gi: 1024 ** 3,
    Ti: 1024 ** 4,
  };
  return Number(match[1]) * units[match[2] ?? ""]!;
}

function configMapData(manifests: Manifest[], namespace: string): Map<string, Record<string, string>> {
  const maps = new Map<string, Record<string, string>>();
  for (const manifest of manifests) {
    if (manifest.kind !== "ConfigMap") continue;
    maps.set(`${nsOf(manifest, namespace)}/${manifest.metadata.name}`, (manifest.data ?? {}) as Record<string, string>);
  }
  return maps;
}

/**
 * The environment a container would see: literal values and ConfigMap keys resolved; Secret keys
 * and field references stand as `<secret name/key>` / `<field>` (they exist only in the cluster).
 */
export function resolveEnv(container: Container, manifests: Manifest[], namespace: string): Record<string, string> {
  const maps = configMapData(manifests, namespace);
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef?.name) Object.assign(env, maps.get(`${namespace}/${from.configMapRef.name}`) ?? {});
  }
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (variable.valueFrom?.configMapKeyRef) {
      const value = maps.get(`${namespace}/${variable.valueFrom.configMapKeyRef.name}`)?.[
        variable.valueFrom.configMapKeyRef.key
      ];
      if (value !== undefined) env[variable.name] = value;
    } else if (variable.valueFrom?.secretKeyRef) {
      env[variable.name] = `<secret ${variable.valueFrom.secretKeyRef.name}/${variable.valueFrom.secretKeyRef.key}>`;
    } else if (variable.valueFrom) env[variable.name] = "<field>";
  }
  return env;
}

/** The content of the file a container would read at `path`, when a ConfigMap volume provides it. */
export function mountedConfigFile(
  deployment: { pod: PodSpec },
  container: Container,
  path: string,
  manifests: Manifest[],
  namespace: string,
): string | undefined {
  const maps = configMapData(manifests, namespace);
  for (const mount of container.volumeMounts ?? []) {
    const prefix = mount.mountPath.endsWith("/") ? mount.mountPath : `${mount.mountPath}/`;
    if (!path.startsWith(prefix)) continue;
    const volume = (deployment.pod.volumes ?? []).find((candidate) => candidate.name === mount.name);
    if (!volume?.configMap?.name) continue;
    const relative = path.slice(prefix.length);
    const item = volume.configMap.items
      ? volume.configMap.items.find((candidate) => candidate.path === relative)
      : { key: relative, path: relative };
    if (!item) continue;
    return maps.get(`${namespace}/${volume.configMap.name}`)?.[item.key];
  }
  return undefined;
}

const SECRET_NAME = /secret|passw|pepper|key|token|credential|private/i;
const PEM = /-----BEGIN [A-Z ]+-----/;

/** Why a ConfigMap value looks like it carries a secret, or undefined. */
export function secretLookingValue(value: string): string | undefined {
  if (PEM.test(value)) return "contains a PEM block";
  for (const match of value.matchAll(/[a-z][a-z0-9+.-]*:\/\/[^\s"',]+/gi)) {
    let url: URL;
    try {
      url = new URL(match[0]);
    } catch {
      continue;
    }
    if (url.password) return `has a URL with a password (${url.protocol}//…@${url.host})`;
    for (const key of url.searchParams.keys())
      if (SECRET_NAME.test(key)) return `has a URL with a secret-looking query parameter "${key}" (${url.host})`;
    // RPC providers often put the API key in the path: a long run of letters and digits.
    if (
      url.pathname
        .split("/")
        .some(
          (segment) =>
            segment.length >= 24 && /[a-z]/i.test(segment) && /[0-9]/.test(segment) && /^[A-Za-z0-9_-]+$/.test(segment),
        )
    ) {
      return `has a URL whose path looks like it embeds an API key (${url.host})`;
    }
  }
  return undefined;
}

/** The image without its tag or digest. */
function imageName(image: string | undefined): string {
  const withoutDigest = (image ?? "").split("@")[0]!;
  const tagAt = withoutDigest.indexOf(":", withoutDigest.lastIndexOf("/") + 1);
  return tagAt >= 0 ? withoutDigest.slice(0, tagAt) : withoutDigest;
}

function imageProblem(image: string | undefined): string | undefined {
  if (!image) return "has no image";
  const [withoutDigest, digest] = image.split("@");
  const lastSlash = withoutDigest!.lastIndexOf("/");
  const tagAt = withoutDigest!.indexOf(":", lastSlash + 1);
  const tag = tagAt >= 0 ? withoutDigest!.slice(tagAt + 1) : undefined;
  if (tag === "latest") return `uses the tag latest (${image})`;
  if (!tag && !digest) return `has no tag or digest (${image})`;
  return undefined;
}

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

export function checkRules(manifests: Manifest[], options: RuleOptions): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const report = (rule: string, object: string, message: string) => problems.push({ rule, object, message });
  const deployments = deploymentsOf(manifests, options.namespace);
  const byKind = (kind: string) => manifests.filter((manifest) => manifest.kind === kind);
  const hpas = byKind("HorizontalPodAutoscaler");
  const pdbs = byKind("PodDisruptionBudget");
  const services = byKind("Service");
  const configMaps = configMapData(manifests, options.namespace);
  const policies = new NetworkPolicies(byKind("NetworkPolicy") as unknown as NetworkPolicyObject[], options.namespace);
  const context: RuleContext = {
    manifests,
    options,
    report,
    byKind,
    deployments,
    hpas,
    pdbs,
    services,
    configMaps,
    policies,
  };

  checkWorkloads(context);
  checkScaling(context);
  checkServices(context);
  checkNothingSecret(context);
  checkNetwork(context);

  return problems;
}

type Report = (rule: string, object: string, message: string) => void;

/** What every rule group reads: the input, where problems go, and the objects looked up once for all. */
interface RuleContext {
  manifests: Manifest[];
  options: RuleOptions;
  report: Report;
  byKind: (kind: string) => Manifest[];
  deployments: DeploymentView[];
  hpas: Manifest[];
  pdbs: Manifest[];
  services: Manifest[];
  configMaps: Map<string, Record<string, string>>;
  policies: NetworkPolicies;
}

// ---- Workloads: probes, resources, shutdown, security, images, scraping.
function checkWorkloads(context: RuleContext): void {
  const { report, deployments } = context;
  for (const deployment of deployments) {
    checkPodTemplate(report, deployment);
    for (const container of [...(deployment.pod.initContainers ?? []), ...deployment.containers])
      checkContainerHardening(report, deployment, container);
    for (const container of deployment.containers) checkContainerConfiguration(context, deployment, container);
    checkVolumes(context, deployment);
    checkScraping(report, deployment);
  }
}

/** Labels and selector, at least one container, and the pod's own hardening. */
function checkPodTemplate(report: Report, deployment: DeploymentView): void {
  const object = id(deployment.manifest);
  if (!deployment.podLabels["app.kubernetes.io/name"])
    report("labels", object, "pod template has no app.kubernetes.io/name label");
  if (
    !deployment.selector ||
    !selectorMatches(deployment.selector, deployment.podLabels) ||
    Object.keys(deployment.selector.matchLabels ?? {}).length === 0
  ) {
    report("labels", object, "selector must be non-empty and match the pod template's labels");
  }
  if (deployment.containers.length === 0) report("containers", object, "has no container");
  const pod = deployment.pod;
  if (pod.automountServiceAccountToken !== false)
    report("security", object, "must set automountServiceAccountToken: false (no workload talks to the API server)");
  if (pod.hostNetwork || pod.hostPID || pod.hostIPC)
    report("security", object, "must not use the host's network, PID or IPC namespace");
}

/** Every container, init containers included: a pinned image, and the security settings. */
function checkContainerHardening(report: Report, deployment: DeploymentView, container: Container): void {
  const object = id(deployment.manifest);
  const pod = deployment.pod;
  const where = `${object} container ${container.name}`;
  const imageIssue = imageProblem(container.image);
  if (imageIssue) report("images", where, imageIssue);

  // Security: the container's settings, falling back to the pod's where Kubernetes does.
  const own = container.securityContext ?? {};
  const podLevel = pod.securityContext ?? {};
  const runAsNonRoot = own.runAsNonRoot ?? podLevel.runAsNonRoot;
  const runAsUser = own.runAsUser ?? podLevel.runAsUser;
  const seccomp = own.seccompProfile?.type ?? podLevel.seccompProfile?.type;
  if (runAsNonRoot !== true) report("security", where, "must run with runAsNonRoot: true");
  if (runAsUser === 0) report("security", where, "must not run as uid 0");
  if (own.readOnlyRootFilesystem !== true) report("security", where, "must set readOnlyRootFilesystem: true");
  if (own.allowPrivilegeEscalation !== false) report("security", where, "must set allowPrivilegeEscalation: false");
  if (own.privileged === true) report("security", where, "must not be privileged");
  if (!(own.capabilities?.drop ?? []).includes("ALL")) report("security", where, "must drop ALL capabilities");
  if ((own.capabilities?.add ?? []).length > 0) report("security", where, "must not add capabilities");
  if (seccomp !== "RuntimeDefault" && seccomp !== "Localhost")
    report("security", where, "must use the RuntimeDefault seccomp profile");
}

/** A workload's container: probes, resources, shutdown, listening addresses, and what its configuration refers to. */
function checkContainerConfiguration(context: RuleContext, deployment: DeploymentView, container: Container): void {
  const { manifests, report } = context;
  const object = id(deployment.manifest);
  const where = `${object} container ${container.name}`;
  checkProbes(report, where, container);
  checkResources(report, where, container);
  const env = resolveEnv(container, manifests, deployment.namespace);
  checkShutdown(report, deployment, where, container, env);
  checkListeningAddresses(report, where, env);
  checkConfigReferences(context, deployment, where, container);
  checkMountedFiles(context, deployment, where, container, env);
}

function checkProbes(report: Report, where: string, container: Container): void {
  for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"] as const) {
    if (!container[probe]) report("probes", where, `has no ${probe}`);
  }
  const ports = container.ports ?? [];
  const grpcPort = ports.find((port) => port.name === "grpc")?.containerPort;
  const httpPort = ports.find((port) => port.name === "http")?.containerPort;
  if (grpcPort !== undefined && container.readinessProbe && container.readinessProbe.grpc?.port !== grpcPort) {
    report(
      "probes",
      where,
      `readinessProbe must be the gRPC health check on the gRPC port (grpc: {port: ${grpcPort}})`,
    );
  }
  if (
    grpcPort === undefined &&
    httpPort !== undefined &&
    container.readinessProbe &&
    container.readinessProbe.httpGet?.path !== "/readyz"
  ) {
    report("probes", where, "readinessProbe must be httpGet /readyz");
  }
  for (const probe of ["livenessProbe", "startupProbe"] as const) {
    const spec = container[probe];
    if (!spec) continue;
    // The services' gRPC health and /readyz follow their dependencies: a liveness or startup
    // probe on them would restart every pod whenever Redis or Kafka is away.
    if (spec.grpc)
      report("probes", where, `${probe} must not use gRPC health (it reports dependencies); use httpGet /healthz`);
    if (spec.httpGet && spec.httpGet.path !== "/healthz")
      report("probes", where, `${probe} must be httpGet /healthz (process only), not ${spec.httpGet.path}`);
  }
}

function checkResources(report: Report, where: string, container: Container): void {
  for (const resource of ["cpu", "memory"]) {
    const request = container.resources?.requests?.[resource];
    const limit = container.resources?.limits?.[resource];
    if (request === undefined) report("resources", where, `has no ${resource} request`);
    if (limit === undefined) report("resources", where, `has no ${resource} limit`);
    const requested = parseQuantity(request);
    const limited = parseQuantity(limit);
    if (requested !== undefined && limited !== undefined && requested > limited)
      report("resources", where, `${resource} request ${request} exceeds its limit ${limit}`);
  }
}

/** Graceful shutdown: preStop, then the process's own drain, within the grace period. */
function checkShutdown(
  report: Report,
  deployment: DeploymentView,
  where: string,
  container: Container,
  env: Record<string, string>,
): void {
  const object = id(deployment.manifest);
  const pod = deployment.pod;
  const preStop = container.lifecycle?.preStop;
  if (!preStop) report("shutdown", where, "has no preStop hook (endpoints must drain before SIGTERM)");
  const preStopSeconds =
    preStop?.sleep?.seconds ?? Number(preStop?.exec?.command?.find((part) => /^\d+$/.test(part)) ?? 0);
  const drainSeconds = Number(env.SHUTDOWN_TIMEOUT_MS ?? 15_000) / 1000;
  const grace = pod.terminationGracePeriodSeconds ?? 30;
  if (pod.terminationGracePeriodSeconds === undefined)
    report("shutdown", object, "must set terminationGracePeriodSeconds");
  else if (grace < preStopSeconds + drainSeconds + 5) {
    report(
      "shutdown",
      where,
      `terminationGracePeriodSeconds ${grace} < preStop ${preStopSeconds} s + SHUTDOWN_TIMEOUT_MS ${drainSeconds} s + 5 s`,
    );
  }
}

/**
 * Listening addresses: the services default to loopback, unreachable in a pod; auth's key
 * administration must stay there (operators reach it through kubectl port-forward).
 */
function checkListeningAddresses(report: Report, where: string, env: Record<string, string>): void {
  for (const [name, value] of Object.entries(env)) {
    const loopback = /^(127\.|localhost$|::1$)/.test(value);
    if (name === "ADMIN_GRPC_HOST") {
      if (!loopback)
        report(
          "env",
          where,
          `${name}=${value}: key administration must listen on loopback only (kubectl port-forward reaches it)`,
        );
    } else if (name.endsWith("_HOST") && loopback)
      report("env", where, `${name}=${value} listens on loopback; set 0.0.0.0`);
  }
}

/** ConfigMap references must resolve; Secrets referred to must be documented, mounted volumes must exist. */
function checkConfigReferences(
  context: RuleContext,
  deployment: DeploymentView,
  where: string,
  container: Container,
): void {
  const { options, report, configMaps } = context;
  const pod = deployment.pod;
  // ConfigMap references must resolve.
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.configMapKeyRef;
    if (ref && !ref.optional) {
      const data = configMaps.get(`${deployment.namespace}/${ref.name}`);
      if (!data) report("references", where, `env ${variable.name} refers to a missing ConfigMap ${ref.name}`);
      else if (data[ref.key] === undefined)
        report("references", where, `env ${variable.name} refers to a missing key ${ref.key} of ConfigMap ${ref.name}`);
    }
    const secretRef = variable.valueFrom?.secretKeyRef;
    if (secretRef && !options.documentedSecrets.includes(secretRef.name ?? ""))
      report("secrets", where, `env ${variable.name} refers to an undocumented Secret ${secretRef.name}`);
  }
  for (const from of container.envFrom ?? []) {
    if (
      from.configMapRef?.name &&
      !from.configMapRef.optional &&
      !configMaps.has(`${deployment.namespace}/${from.configMapRef.name}`)
    ) {
      report("references", where, `envFrom refers to a missing ConfigMap ${from.configMapRef.name}`);
    }
    if (from.secretRef?.name && !options.documentedSecrets.includes(from.secretRef.name))
      report("secrets", where, `envFrom refers to an undocumented Secret ${from.secretRef.name}`);
  }
  for (const mount of container.volumeMounts ?? []) {
    if (!(pod.volumes ?? []).some((volume) => volume.name === mount.name))
      report("references", where, `mounts a missing volume ${mount.name}`);
  }
}

/** Files the configuration points at must be mounted. */
function checkMountedFiles(
  context: RuleContext,
  deployment: DeploymentView,
  where: string,
  container: Container,
  env: Record<string, string>,
): void {
  const { manifests, report } = context;
  for (const [name, value] of Object.entries(env)) {
    if (name.endsWith("_FILE") && value.startsWith("/") && !value.startsWith("/var/run/secrets/")) {
      if (mountedConfigFile(deployment, container, value, manifests, deployment.namespace) === undefined) {
        report("references", where, `${name}=${value} is not a file of a mounted ConfigMap`);
      }
    }
  }
}

/** The pod's volumes refer to ConfigMaps and keys that exist, and to documented Secrets only. */
function checkVolumes(context: RuleContext, deployment: DeploymentView): void {
  const { options, report, configMaps } = context;
  const object = id(deployment.manifest);
  const pod = deployment.pod;
  for (const volume of pod.volumes ?? []) {
    if (volume.configMap?.name && !volume.configMap.optional) {
      const data = configMaps.get(`${deployment.namespace}/${volume.configMap.name}`);
      if (!data)
        report("references", object, `volume ${volume.name} refers to a missing ConfigMap ${volume.configMap.name}`);
      for (const item of volume.configMap.items ?? [])
        if (data && data[item.key] === undefined)
          report("references", object, `volume ${volume.name} refers to a missing key ${item.key}`);
    }
    if (volume.secret && !options.documentedSecrets.includes(volume.secret.secretName ?? "")) {
      report("secrets", object, `volume ${volume.name} refers to an undocumented Secret ${volume.secret.secretName}`);
    }
  }
}

/** Prometheus scraping: the annotated port is a container port. */
function checkScraping(report: Report, deployment: DeploymentView): void {
  const object = id(deployment.manifest);
  const scrapePort = deployment.podAnnotations["prometheus.io/port"];
  if (deployment.podAnnotations["prometheus.io/scrape"] !== "true" || !scrapePort) {
    report("metrics", object, 'pod template must carry prometheus.io/scrape: "true" and prometheus.io/port');
  } else if (
    !deployment.containers.some((container) =>
      (container.ports ?? []).some((port) => String(port.containerPort) === scrapePort),
    )
  ) {
    report("metrics", object, `prometheus.io/port ${scrapePort} is not a container port`);
  }
}

// ---- Scaling: HPA or singleton, and PDBs that never block a drain.
function checkScaling(context: RuleContext): void {
  checkAutoscalers(context);
  const minimumSize = checkReplicas(context);
  checkExclusiveWork(context);
  checkDisruptionBudgets(context, minimumSize);
}

function targetsOf(hpa: Manifest) {
  return (hpa.spec as { scaleTargetRef?: { kind?: string; name?: string } } | undefined)?.scaleTargetRef;
}

/** Each HPA scales a Deployment that exists, within sane bounds, on CPU. */
function checkAutoscalers(context: RuleContext): void {
  const { options, report, deployments, hpas } = context;
  for (const hpa of hpas) {
    const target = targetsOf(hpa);
    const spec = (hpa.spec ?? {}) as {
      minReplicas?: number;
      maxReplicas?: number;
      metrics?: Array<{ type?: string; resource?: { name?: string; target?: { type?: string } } }>;
    };
    if (
      target?.kind !== "Deployment" ||
      !deployments.some(
        (deployment) => deployment.name === target.name && deployment.namespace === nsOf(hpa, options.namespace),
      )
    ) {
      report("autoscaling", id(hpa), `scaleTargetRef ${target?.kind}/${target?.name} does not exist`);
    }
    if ((spec.minReplicas ?? 1) < 1 || (spec.maxReplicas ?? 0) < (spec.minReplicas ?? 1))
      report("autoscaling", id(hpa), "needs 1 <= minReplicas <= maxReplicas");
    if (
      !(spec.metrics ?? []).some(
        (metric) =>
          metric.type === "Resource" &&
          metric.resource?.name === "cpu" &&
          metric.resource.target?.type === "Utilization",
      )
    ) {
      report("autoscaling", id(hpa), "must scale on CPU utilisation");
    }
  }
}

/**
 * Each Deployment is either a singleton or autoscaled by exactly one HPA. Returns each one's minimum
 * number of pods, by Deployment name.
 */
function checkReplicas(context: RuleContext): Map<string, number> {
  const { options, report, deployments, hpas } = context;
  const minimumSize = new Map<string, number>();
  for (const deployment of deployments) {
    const object = id(deployment.manifest);
    const scalers = hpas.filter(
      (hpa) => targetsOf(hpa)?.kind === "Deployment" && targetsOf(hpa)?.name === deployment.name,
    );
    if (options.singletons.includes(deployment.name)) {
      if (scalers.length > 0) report("autoscaling", object, "is a singleton and must have no HPA");
      if (deployment.replicas !== 1) report("autoscaling", object, "is a singleton: replicas must be exactly 1");
      if (deployment.strategyType !== "Recreate")
        report(
          "autoscaling",
          object,
          "is a singleton: strategy must be Recreate (the old pod stops before the new one starts)",
        );
      minimumSize.set(deployment.name, 1);
      continue;
    }
    if (scalers.length !== 1)
      report(
        "autoscaling",
        object,
        `must be targeted by exactly one HorizontalPodAutoscaler (found ${scalers.length})`,
      );
    if (deployment.replicas !== undefined)
      report("autoscaling", object, "is autoscaled: leave spec.replicas to the HPA (applying would reset the scale)");
    const min = (scalers[0]?.spec as { minReplicas?: number } | undefined)?.minReplicas ?? 1;
    minimumSize.set(deployment.name, min);
  }
  return minimumSize;
}

/**
 * A part of exclusive work in two Deployments would have two active instances (the second fenced
 * off in a restart loop); in none, it would silently stop.
 */
function checkExclusiveWork(context: RuleContext): void {
  const { manifests, options, report, deployments } = context;
  for (const work of options.exclusiveWork) {
    const runners = new Map<string, string[]>(work.values.map((value) => [value, []]));
    for (const deployment of deployments) {
      const object = id(deployment.manifest);
      for (const container of deployment.containers.filter((candidate) => imageName(candidate.image) === work.image)) {
        const listed = (resolveEnv(container, manifests, deployment.namespace)[work.variable] ?? "")
          .split(",")
          .map((item) => item.trim())
          .filter(Boolean);
        const parts = new Set(listed.length > 0 ? listed : work.values);
        for (const part of parts) {
          if (runners.has(part)) runners.get(part)!.push(deployment.name);
          else
            report("singletons", object, `${work.variable} lists ${part}, which is none of ${work.values.join(", ")}`);
        }
        if (!options.singletons.includes(deployment.name))
          report(
            "singletons",
            object,
            `runs ${[...parts].join(", ")} of ${work.image}: must be a singleton Deployment`,
          );
      }
    }
    for (const [part, names] of runners) {
      if (names.length !== 1)
        report(
          "singletons",
          `${work.variable}=${part}`,
          `must run in exactly one Deployment (found ${names.length}${names.length > 0 ? `: ${names.join(", ")}` : ""})`,
        );
    }
  }
}

/** Each Deployment has exactly one PDB, and each PDB allows an eviction at the minimum size. */
function checkDisruptionBudgets(context: RuleContext, minimumSize: Map<string, number>): void {
  const { options, report, deployments, pdbs } = context;
  for (const deployment of deployments) {
    const selecting = pdbs.filter((pdb) => {
      const selector = (pdb.spec as { selector?: LabelSelector } | undefined)?.selector;
      return (
        selector !== undefined &&
        nsOf(pdb, options.namespace) === deployment.namespace &&
        selectorMatches(selector, deployment.podLabels)
      );
    });
    if (selecting.length !== 1)
      report(
        "disruption",
        id(deployment.manifest),
        `must be selected by exactly one PodDisruptionBudget (found ${selecting.length})`,
      );
  }
  for (const pdb of pdbs) {
    const spec = (pdb.spec ?? {}) as {
      selector?: LabelSelector;
      minAvailable?: number | string;
      maxUnavailable?: number | string;
    };
    const selected = deployments.filter(
      (deployment) =>
        spec.selector &&
        nsOf(pdb, options.namespace) === deployment.namespace &&
        selectorMatches(spec.selector, deployment.podLabels),
    );
    if (!spec.selector || selected.length === 0) {
      report("disruption", id(pdb), "selects no Deployment's pods");
      continue;
    }
    const size = selected.reduce((sum, deployment) => sum + (minimumSize.get(deployment.name) ?? 1), 0);
    const amount = (value: number | string, roundUp: boolean) =>
      typeof value === "number" ? value : (roundUp ? Math.ceil : Math.floor)((Number.parseFloat(value) / 100) * size);
    const allowed =
      spec.maxUnavailable !== undefined
        ? amount(spec.maxUnavailable, true)
        : spec.minAvailable !== undefined
          ? size - amount(spec.minAvailable, true)
          : size;
    if (allowed < 1)
      report(
        "disruption",
        id(pdb),
        `allows no eviction at the minimum size of ${size} pod(s): node drains would block`,
      );
  }
}

// ---- Services: selectors and ports meet real pods; gRPC Services are headless.
function checkServices(context: RuleContext): void {
  const { options, report, deployments, services } = context;
  for (const service of services) {
    const spec = (service.spec ?? {}) as {
      selector?: Record<string, string>;
      clusterIP?: string;
      ports?: Array<{ name?: string; port: number; targetPort?: number | string }>;
    };
    const selected = deployments.filter(
      (deployment) =>
        deployment.namespace === nsOf(service, options.namespace) &&
        spec.selector &&
        Object.keys(spec.selector).length > 0 &&
        selectorMatches({ matchLabels: spec.selector }, deployment.podLabels),
    );
    if (selected.length === 0) {
      report("services", id(service), "selector matches no Deployment's pod labels");
      continue;
    }
    for (const port of spec.ports ?? []) {
      const target = port.targetPort ?? port.port;
      const resolved = selected.every((deployment) =>
        deployment.containers.some((container) =>
          (container.ports ?? []).some((containerPort) =>
            typeof target === "number" ? containerPort.containerPort === target : containerPort.name === target,
          ),
        ),
      );
      if (!resolved)
        report(
          "services",
          id(service),
          `port ${port.name ?? port.port} targets ${target}, which the selected pods do not expose`,
        );
      if (port.name === "grpc" && spec.clusterIP !== "None")
        report(
          "services",
          id(service),
          "serves gRPC and must be headless (clusterIP: None) so clients balance over every pod",
        );
      if (spec.clusterIP === "None") {
        const number = selected[0]!.endpoint.namedPorts[String(target)] ?? target;
        if (number !== port.port)
          report(
            "services",
            id(service),
            `is headless: port ${port.port} must equal the container port (${number}), clients dial pods directly`,
          );
      }
    }
  }
}

// ---- Nothing secret in the repository.
function checkNothingSecret(context: RuleContext): void {
  const { report, byKind } = context;
  for (const secret of byKind("Secret")) {
    if (secret.data || secret.stringData)
      report(
        "secrets",
        id(secret),
        "Secret with data: secrets are created in the cluster, never kept in the repository",
      );
  }
  for (const configMap of byKind("ConfigMap")) {
    for (const [key, value] of Object.entries({
      ...((configMap.data ?? {}) as Record<string, string>),
      ...((configMap.binaryData ?? {}) as Record<string, string>),
    })) {
      if (SECRET_NAME.test(key)) report("secrets", id(configMap), `key ${key} looks like a secret; use a Secret`);
      const why = secretLookingValue(String(value));
      if (why) report("secrets", id(configMap), `value of ${key} ${why}; use a Secret`);
      // Keys inside JSON documents (chains.json) count as names too.
      if (key.endsWith(".json")) {
        try {
          const visit = (node: unknown, path: string): void => {
            if (Array.isArray(node)) node.forEach((item, index) => visit(item, `${path}[${index}]`));
            else if (node && typeof node === "object") {
              for (const [name, child] of Object.entries(node)) {
                if (SECRET_NAME.test(name))
                  report("secrets", id(configMap), `${key} has a field ${path}.${name} that looks like a secret`);
                visit(child, `${path}.${name}`);
              }
            }
          };
          visit(JSON.parse(String(value)), "");
        } catch {
          report("references", id(configMap), `${key} is not valid JSON`);
        }
      }
    }
  }
}

// ---- Network: default deny, DNS, each gRPC caller reaches its backend and nothing else does.
function checkNetwork(context: RuleContext): void {
  const networkPolicies = context.byKind("NetworkPolicy") as unknown as NetworkPolicyObject[];
  checkPolicyBaseline(context, networkPolicies);
  const calls = checkWorkloadConnections(context, networkPolicies);
  checkGrpcExposure(context, calls);
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
  const { manifests, options, report, deployments, policies } = context;
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

  for (const source of deployments) {
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
    for (const source of deployments) {
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

export function formatProblems(
  problems: Array<{ object: string; message: string; rule?: string; path?: string }>,
): string {
  return problems
    .map(
      (problem) =>
        `${problem.rule ? `[${problem.rule}] ` : ""}${problem.object}${problem.path ? ` ${problem.path}` : ""}: ${problem.message}`,
    )
    .join("\n");
}
