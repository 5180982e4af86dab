import type { Manifest } from "../manifests.js";
import type { LabelSelector, NetworkPolicies, PodEndpoint } from "../netpol.js";

/** What a rule found wrong, and where. */

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
  /**
   * Database servers (StatefulSets) and the only workloads that may connect to them: the policies
   * must let each client through on `port` and keep every other workload, namespace and address out.
   */
  databases: Array<{ workload: string; port: number; clients: string[] }>;
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
export interface Container {
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
  persistentVolumeClaim?: { claimName?: string };
}
export interface PodSpec {
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
/** The kinds whose pods the rules look at. */
export const WORKLOAD_KINDS = ["Deployment", "StatefulSet", "Job", "CronJob"] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

/** A workload and its pod template (a CronJob's is its jobTemplate's). */
export interface DeploymentView {
  kind: WorkloadKind;
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

export const id = (manifest: Manifest) => `${manifest.kind}/${manifest.metadata?.name}`;
export const nsOf = (manifest: Manifest, fallback: string) =>
  (manifest.metadata?.namespace as string | undefined) ?? fallback;

/** Every Deployment, StatefulSet, Job and CronJob, with its pod template. */
export function workloadsOf(manifests: Manifest[], namespace: string): DeploymentView[] {
  return manifests
    .filter((manifest) => (WORKLOAD_KINDS as readonly string[]).includes(manifest.kind))
    .map((manifest) => {
      const kind = manifest.kind as WorkloadKind;
      const outer = (manifest.spec ?? {}) as { jobTemplate?: { spec?: unknown } };
      const spec = ((kind === "CronJob" ? outer.jobTemplate?.spec : outer) ?? {}) as {
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
        kind,
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

export function deploymentsOf(manifests: Manifest[], namespace: string): DeploymentView[] {
  return workloadsOf(manifests, namespace).filter((workload) => workload.kind === "Deployment");
}

export function configMapData(manifests: Manifest[], namespace: string): Map<string, Record<string, string>> {
  const maps = new Map<string, Record<string, string>>();
  for (const manifest of manifests) {
    if (manifest.kind !== "ConfigMap") continue;
    maps.set(`${nsOf(manifest, namespace)}/${manifest.metadata.name}`, (manifest.data ?? {}) as Record<string, string>);
  }
  return maps;
}

export type Report = (rule: string, object: string, message: string) => void;

/** What every rule group reads: the input, where problems go, and the objects looked up once for all. */
export interface RuleContext {
  manifests: Manifest[];
  options: RuleOptions;
  report: Report;
  byKind: (kind: string) => Manifest[];
  /** The Deployments only (the services: autoscaling, gRPC, scraping rules). */
  deployments: DeploymentView[];
  /** Every workload: Deployments, StatefulSets, Jobs and CronJobs. */
  workloads: DeploymentView[];
  hpas: Manifest[];
  pdbs: Manifest[];
  services: Manifest[];
  configMaps: Map<string, Record<string, string>>;
  policies: NetworkPolicies;
}
