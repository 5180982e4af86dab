import type {
  V1ConfigMapKeySelector,
  V1Container,
  V1ContainerPort,
  V1Deployment,
  V1EnvVar,
  V1Namespace,
  V1NetworkPolicy,
  V1NetworkPolicyEgressRule,
  V1NetworkPolicyIngressRule,
  V1NetworkPolicyPeer,
  V1PodDisruptionBudget,
  V1Probe,
  V1Service,
  V1ServiceAccount,
  V1Volume,
  V1VolumeMount,
  V2HorizontalPodAutoscaler,
} from "@kubernetes/client-node";
import type { Deployable, EnvValue } from "./deployable.js";
import {
  BASE_IMAGE_TAG,
  CHAINS_CONFIG_MAP,
  CHAINS_FILE,
  CHAINS_MOUNT_PATH,
  CONFIG_MAP,
  DEPLOYABLES,
  GRPC_PORT,
  HTTP_PORT,
  INGRESS_CONTROLLER_NAMESPACE,
  imageOf,
  KAFKA_TOPICS_JOB,
  NAMESPACE,
  OPS_PORT,
  PRE_STOP_SLEEP_SECONDS,
  RUN_AS_UID,
  SERVICE_ACCOUNT,
  SHUTDOWN_TIMEOUT_MS,
  TERMINATION_GRACE_SECONDS,
  UNCONFIGURED_CIDR,
} from "./deployables.js";
import { kafkaCredentialEnv } from "./kafkaSecrets.js";
import { postgresEgressOf } from "./postgresEgress.js";
import { postgresCredentialEnv } from "./postgresRoles.js";
import { serverCredentialEnv } from "./serverCredentials.js";

/** Any Kubernetes object as it appears in a manifest. */
export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; [key: string]: unknown };
  [key: string]: unknown;
};

/** The generated model calls `from` `_from` (a TypeScript keyword clash); manifests use the JSON name. */
type IngressRule = Omit<V1NetworkPolicyIngressRule, "_from"> & { from?: V1NetworkPolicyPeer[] };
type NetworkPolicySpec = Omit<NonNullable<V1NetworkPolicy["spec"]>, "ingress"> & { ingress?: IngressRule[] };
type NetworkPolicyManifest = Omit<V1NetworkPolicy, "spec"> & Manifest & { spec: NetworkPolicySpec };

const NAME_LABEL = "app.kubernetes.io/name";

function labelsOf(deployable: Deployable): Record<string, string> {
  return { [NAME_LABEL]: deployable.name, "app.kubernetes.io/component": deployable.service };
}

const selectorOf = (deployable: Deployable) => ({ matchLabels: { [NAME_LABEL]: deployable.name } });

function envVar(name: string, value: EnvValue): V1EnvVar {
  if (typeof value === "string") return { name, value };
  if ("secretKey" in value) return { name, valueFrom: { secretKeyRef: value.secretKey } };
  const ref: V1ConfigMapKeySelector = { name: CONFIG_MAP, key: value.configMapKey };
  return { name, valueFrom: { configMapKeyRef: ref } };
}

/** Exactly the variables the service's config schema reads (plus secret file locations). */
function envOf(deployable: Deployable): V1EnvVar[] {
  const env: Record<string, EnvValue> = {};
  // Defaults are loopback, unreachable from the kubelet and other pods.
  if (deployable.role === "gateway") {
    env.HTTP_HOST = "0.0.0.0";
    env.HTTP_PORT = String(HTTP_PORT);
  } else {
    env.GRPC_HOST = "0.0.0.0";
    env.GRPC_PORT = String(GRPC_PORT);
  }
  // /metrics and the detailed /readyz: the kubelet and Prometheus reach it, the public does not.
  env.OPS_HOST = "0.0.0.0";
  env.OPS_PORT = String(OPS_PORT);
  env.LOG_LEVEL = { configMapKey: "LOG_LEVEL" };
  env.SHUTDOWN_TIMEOUT_MS = String(SHUTDOWN_TIMEOUT_MS);
  if (deployable.uses.redis) env.REDIS_URL = { configMapKey: "REDIS_URL" };
  if (deployable.uses.kafka) {
    env.KAFKA_BROKERS = { configMapKey: "KAFKA_BROKERS" };
    // The Job kafka-topics creates the topics (kafkaTopicsJob.ts): the services only wait for theirs.
    env.KAFKA_CREATE_TOPICS = "false";
    Object.assign(env, kafkaCredentialEnv(deployable.name));
  }
  if (deployable.uses.nats) env.NATS_URL = { configMapKey: "NATS_URL" };
  Object.assign(env, serverCredentialEnv(deployable));
  Object.assign(env, postgresCredentialEnv(deployable));
  if (deployable.uses.chainsFile) env.CHAINS_FILE = CHAINS_FILE;
  Object.assign(env, deployable.env);
  for (const secret of deployable.secrets ?? []) env[secret.env.name] = secret.env.value;
  return Object.entries(env).map(([name, value]) => envVar(name, value));
}

function portsOf(deployable: Deployable): V1ContainerPort[] {
  return [
    deployable.role === "gateway"
      ? { name: "http", containerPort: HTTP_PORT, protocol: "TCP" }
      : { name: "grpc", containerPort: GRPC_PORT, protocol: "TCP" },
    { name: "metrics", containerPort: OPS_PORT, protocol: "TCP" },
  ];
}

/**
 * Readiness follows the dependencies: backends report gRPC health SERVING only while every
 * dependency answers (the gateway's /readyz likewise). Liveness and startup ask only whether the
 * process answers (/healthz), so an outage of Redis or Kafka takes pods out of rotation without
 * restarting them all.
 */
function probesOf(deployable: Deployable): Pick<V1Container, "startupProbe" | "readinessProbe" | "livenessProbe"> {
  const healthz = { path: "/healthz", port: "metrics" };
  const startupProbe: V1Probe = { httpGet: healthz, periodSeconds: 2, timeoutSeconds: 2, failureThreshold: 30 };
  const livenessProbe: V1Probe = { httpGet: healthz, periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 3 };
  const readinessProbe: V1Probe =
    deployable.role === "gateway"
      ? {
          httpGet: { path: "/readyz", port: "metrics" },
          periodSeconds: 5,
          timeoutSeconds: 2,
          failureThreshold: 2,
          successThreshold: 1,
        }
      : { grpc: { port: GRPC_PORT }, periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 2, successThreshold: 1 };
  return { startupProbe, readinessProbe, livenessProbe };
}

function volumesOf(deployable: Deployable): { volumes: V1Volume[]; mounts: V1VolumeMount[] } {
  // readOnlyRootFilesystem: anything that writes a temporary file gets a small memory-backed /tmp.
  const volumes: V1Volume[] = [{ name: "tmp", emptyDir: { medium: "Memory", sizeLimit: "16Mi" } }];
  const mounts: V1VolumeMount[] = [{ name: "tmp", mountPath: "/tmp" }];
  if (deployable.uses.chainsFile) {
    volumes.push({
      name: "chains",
      configMap: { name: CHAINS_CONFIG_MAP, items: [{ key: "chains.json", path: "chains.json" }] },
    });
    mounts.push({ name: "chains", mountPath: CHAINS_MOUNT_PATH, readOnly: true });
  }
  for (const secret of deployable.secrets ?? []) {
    // 0440 with fsGroup: readable by the service's group only. Rotation updates the files in place.
    volumes.push({ name: secret.secretName, secret: { secretName: secret.secretName, defaultMode: 0o440 } });
    mounts.push({ name: secret.secretName, mountPath: secret.mountPath, readOnly: true });
  }
  return { volumes, mounts };
}

export function deploymentOf(deployable: Deployable): V1Deployment & Manifest {
  const labels = labelsOf(deployable);
  const { volumes, mounts } = volumesOf(deployable);
  const metricsPort = OPS_PORT;
  const singleton = deployable.scaling === "singleton";
  const container: V1Container = {
    name: deployable.service,
    image: `${imageOf(deployable.service)}:${BASE_IMAGE_TAG}`,
    imagePullPolicy: "IfNotPresent",
    ports: portsOf(deployable),
    env: envOf(deployable),
    resources: deployable.resources,
    ...probesOf(deployable),
    lifecycle: { preStop: { sleep: { seconds: PRE_STOP_SLEEP_SECONDS } } },
    securityContext: {
      runAsNonRoot: true,
      runAsUser: RUN_AS_UID,
      runAsGroup: RUN_AS_UID,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    },
    volumeMounts: mounts,
  };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: deployable.name, labels },
    spec: {
      // Autoscaled Deployments leave replicas to their HPA, so applying the manifests never resets the scale.
      ...(singleton ? { replicas: 1 } : {}),
      revisionHistoryLimit: 5,
      minReadySeconds: singleton ? 0 : 5,
      selector: selectorOf(deployable),
      // Each ingestor source is fenced by its Kafka transactional ids: the old pod stops before the new one starts.
      strategy: singleton
        ? { type: "Recreate" }
        : { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: "25%" } },
      template: {
        metadata: {
          labels,
          annotations: {
            "prometheus.io/scrape": "true",
            "prometheus.io/port": String(metricsPort),
            "prometheus.io/path": "/metrics",
          },
        },
        spec: {
          serviceAccountName: SERVICE_ACCOUNT,
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          terminationGracePeriodSeconds: TERMINATION_GRACE_SECONDS,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: RUN_AS_UID,
            runAsGroup: RUN_AS_UID,
            fsGroup: RUN_AS_UID,
            seccompProfile: { type: "RuntimeDefault" },
          },
          // Replicas spread over zones and nodes, as far as the cluster allows.
          ...(singleton
            ? {}
            : {
                topologySpreadConstraints: [
                  {
                    maxSkew: 1,
                    topologyKey: "topology.kubernetes.io/zone",
                    whenUnsatisfiable: "ScheduleAnyway",
                    labelSelector: selectorOf(deployable),
                  },
                  {
                    maxSkew: 1,
                    topologyKey: "kubernetes.io/hostname",
                    whenUnsatisfiable: "ScheduleAnyway",
                    labelSelector: selectorOf(deployable),
                  },
                ],
              }),
          containers: [container],
          volumes,
        },
      },
    },
  };
}

export function serviceOf(deployable: Deployable): V1Service & Manifest {
  if (deployable.role === "gateway") {
    return {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: deployable.name, labels: labelsOf(deployable) },
      spec: {
        type: "ClusterIP",
        selector: { [NAME_LABEL]: deployable.name },
        ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
      },
    };
  }
  // Headless: DNS answers with every ready pod, so gRPC clients balance per call, not per connection.
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: deployable.name, labels: labelsOf(deployable) },
    spec: {
      clusterIP: "None",
      selector: { [NAME_LABEL]: deployable.name },
      ports: [
        { name: "grpc", port: GRPC_PORT, targetPort: "grpc", protocol: "TCP", appProtocol: "grpc" },
        { name: "metrics", port: OPS_PORT, targetPort: "metrics", protocol: "TCP" },
      ],
    },
  };
}

export function autoscalerOf(deployable: Deployable): (V2HorizontalPodAutoscaler & Manifest) | undefined {
  if (deployable.scaling === "singleton") return undefined;
  const scaling = deployable.scaling;
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: deployable.name, labels: labelsOf(deployable) },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: deployable.name },
      minReplicas: scaling.minReplicas,
      maxReplicas: scaling.maxReplicas,
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: scaling.cpuUtilization } },
        },
      ],
      behavior: {
        scaleUp: {
          stabilizationWindowSeconds: 0,
          selectPolicy: "Max",
          policies: [
            { type: "Percent", value: 100, periodSeconds: 15 },
            { type: "Pods", value: 4, periodSeconds: 15 },
          ],
        },
        scaleDown: {
          stabilizationWindowSeconds: scaling.scaleDownStabilizationSeconds,
          selectPolicy: "Max",
          policies: [{ type: "Percent", value: 50, periodSeconds: 60 }],
        },
      },
    },
  };
}

export function disruptionBudgetOf(deployable: Deployable): V1PodDisruptionBudget & Manifest {
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: deployable.name, labels: labelsOf(deployable) },
    spec: {
      // One pod at a time: drains proceed even at one replica (the ingestor singletons included).
      maxUnavailable: 1,
      selector: selectorOf(deployable),
      // A pod that is not ready protects nothing; let drains evict it.
      unhealthyPodEvictionPolicy: "AlwaysAllow",
    },
  };
}

const podsNamed = (names: string[]): V1NetworkPolicyPeer => ({
  podSelector: { matchExpressions: [{ key: NAME_LABEL, operator: "In", values: [...names].sort() }] },
});

/** Who may call this deployable, and which deployables it calls, inside the namespace. */
export function networkPolicyOf(deployable: Deployable, all: Deployable[] = DEPLOYABLES): NetworkPolicyManifest {
  const ingress: IngressRule[] = [];
  if (deployable.role === "gateway") {
    // The public entry, through the Ingress controller only: the gateway takes the client address
    // from X-Forwarded-For on its connections, so nothing else may connect (README, section 3).
    ingress.push({
      from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": INGRESS_CONTROLLER_NAMESPACE } } }],
      ports: [{ protocol: "TCP", port: "http" }],
    });
  } else {
    const callers = all.filter((other) => other.calls.includes(deployable.name)).map((other) => other.name);
    if (callers.length > 0) ingress.push({ from: [podsNamed(callers)], ports: [{ protocol: "TCP", port: "grpc" }] });
  }
  const egress: V1NetworkPolicyEgressRule[] =
    deployable.calls.length > 0
      ? [{ to: [podsNamed(deployable.calls)], ports: [{ protocol: "TCP", port: GRPC_PORT }] }]
      : [];
  // The history store: the projectors reach the primary, data-query the replica and the primary.
  const postgres = postgresEgressOf(deployable);
  if (postgres) egress.push(postgres);
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: deployable.name, labels: labelsOf(deployable) },
    spec: {
      podSelector: selectorOf(deployable),
      policyTypes: ["Ingress", "Egress"],
      ...(ingress.length > 0 ? { ingress } : {}),
      ...(egress.length > 0 ? { egress } : {}),
    },
  };
}

/** Manifests for one deployable, in apply order. */
export function deployableManifests(deployable: Deployable, all: Deployable[] = DEPLOYABLES): Manifest[] {
  const autoscaler = autoscalerOf(deployable);
  return [
    deploymentOf(deployable),
    serviceOf(deployable),
    ...(autoscaler ? [autoscaler] : []),
    disruptionBudgetOf(deployable),
    networkPolicyOf(deployable, all),
  ];
}

export function namespaceManifest(): V1Namespace & Manifest {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name: NAMESPACE,
      // Every pod here satisfies the restricted Pod Security Standard; the API server enforces it.
      labels: {
        "pod-security.kubernetes.io/enforce": "restricted",
        "pod-security.kubernetes.io/enforce-version": "v1.32",
        "pod-security.kubernetes.io/warn": "restricted",
      },
    },
  };
}

export function serviceAccountManifest(): V1ServiceAccount & Manifest {
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: SERVICE_ACCOUNT },
    automountServiceAccountToken: false,
  };
}

/** The external dependencies, each reached through one egress policy whose destination overlays set. */
export const EXTERNAL_EGRESS = [
  { name: "allow-egress-kafka", uses: "kafka", port: 9092 },
  { name: "allow-egress-redis", uses: "redis", port: 6379 },
  { name: "allow-egress-nats", uses: "nats", port: 4222 },
  { name: "allow-egress-chain-rpc", uses: "chainRpc", port: 443 },
] as const;

/** Namespace-wide policies: deny by default, DNS for all, Prometheus scraping, external dependencies. */
export function sharedNetworkPolicies(all: Deployable[] = DEPLOYABLES): NetworkPolicyManifest[] {
  const policy = (name: string, spec: NetworkPolicySpec): NetworkPolicyManifest => ({
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name },
    spec,
  });
  return [
    policy("default-deny-all", { podSelector: {}, policyTypes: ["Ingress", "Egress"] }),
    policy("allow-egress-dns", {
      podSelector: {},
      policyTypes: ["Egress"],
      egress: [
        {
          to: [
            {
              namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } },
              podSelector: { matchLabels: { "k8s-app": "kube-dns" } },
            },
          ],
          ports: [
            { protocol: "UDP", port: 53 },
            { protocol: "TCP", port: 53 },
          ],
        },
      ],
    }),
    policy("allow-metrics-scrape", {
      podSelector: {},
      policyTypes: ["Ingress"],
      ingress: [
        {
          from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } }],
          ports: [{ protocol: "TCP", port: "metrics" }],
        },
      ],
    }),
    ...EXTERNAL_EGRESS.map((external) =>
      policy(external.name, {
        podSelector: podsNamed([
          ...all.filter((deployable) => deployable.uses[external.uses]).map((deployable) => deployable.name),
          // The topics Job (kafkaTopicsJob.ts) reaches Kafka and nothing else.
          ...(external.uses === "kafka" ? [KAFKA_TOPICS_JOB] : []),
        ]).podSelector!,
        policyTypes: ["Egress"],
        // A documentation range: each overlay replaces this rule with the real addresses and ports.
        egress: [{ to: [{ ipBlock: { cidr: UNCONFIGURED_CIDR } }], ports: [{ protocol: "TCP", port: external.port }] }],
      }),
    ),
  ];
}
