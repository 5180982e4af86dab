import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import {
  DATA_QUERY_GROUPS,
  DEPLOYABLES,
  INGEST_SOURCES,
  PROJECTIONS,
  REFERENCED_SECRETS,
  SERVICES,
  UNCONFIGURED_CIDR,
} from "./deployables.js";
import { staleBaseFiles } from "./generate.js";
import { parseManifests, renderKustomization, renderOverlay } from "./kustomize.js";
import type { Manifest } from "./manifests.js";
import { BASE_DIR, K8S_DIR, OVERLAYS, type OverlayName } from "./paths.js";
import { checkRules, formatProblems } from "./rules/checkRules.js";
import type { RuleProblem } from "./rules/ruleContext.js";
import { KUBERNETES_VERSION, StrictSchema } from "./schema.js";
import { PROJECT_RULES, validateManifests } from "./validate.js";

let schema: StrictSchema;
const rendered = new Map<OverlayName, Manifest[]>();

beforeAll(async () => {
  schema = await StrictSchema.load();
  await Promise.all(OVERLAYS.map(async (overlay) => rendered.set(overlay, await renderOverlay(overlay))));
});

const objects = (overlay: OverlayName) => rendered.get(overlay)!;
const find = (manifests: Manifest[], kind: string, name: string) => {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name}`);
  return found as Manifest & { spec: any; data?: Record<string, string> };
};
const ofKind = (manifests: Manifest[], kind: string) =>
  manifests.filter((manifest) => manifest.kind === kind) as Array<Manifest & { spec: any }>;
const clone = (overlay: OverlayName): Manifest[] => structuredClone(objects(overlay));

const EXPECTED_DEPLOYMENTS = [
  "gateway",
  "auth",
  "tc",
  "intents-gateway",
  "data-query-accounts",
  "data-query-market",
  "data-query-subnets",
  "projector-intents",
  "projector-accounts",
  "projector-market",
  "projector-subnets",
  "chain-ingestor-intents",
  "chain-ingestor-native",
  "chain-ingestor-price",
];
const INGESTORS = ["chain-ingestor-intents", "chain-ingestor-native", "chain-ingestor-price"];
/** PostgreSQL's governing headless Service and its clients' two (postgres.test.ts checks the rest of it). */
const POSTGRES_SERVICES = ["postgres", "postgres-primary", "postgres-replica"];

test("the generated base is up to date with src/deployables.ts", async () => {
  expect(await staleBaseFiles()).toEqual([]);
});

describe.each(OVERLAYS)("overlay %s", (overlay) => {
  test(`every object is valid against the Kubernetes ${KUBERNETES_VERSION} schema, unknown fields rejected`, () => {
    const report = validateManifests(objects(overlay), schema);
    expect(formatProblems(report.schema)).toBe("");
  });

  test("the project rules hold", () => {
    expect(formatProblems(checkRules(objects(overlay), PROJECT_RULES))).toBe("");
  });

  test("one Deployment, Service, PodDisruptionBudget and NetworkPolicy per deployable; an HPA for all but the ingestors", () => {
    const manifests = objects(overlay);
    const names = (kind: string) =>
      ofKind(manifests, kind)
        .map((manifest) => manifest.metadata.name)
        .sort();
    expect(names("Deployment")).toEqual([...EXPECTED_DEPLOYMENTS].sort());
    expect(names("Service")).toEqual([...EXPECTED_DEPLOYMENTS, ...POSTGRES_SERVICES].sort());
    expect(names("PodDisruptionBudget")).toEqual([...EXPECTED_DEPLOYMENTS, "postgres"].sort());
    expect(names("HorizontalPodAutoscaler")).toEqual(
      EXPECTED_DEPLOYMENTS.filter((name) => !INGESTORS.includes(name)).sort(),
    );
    for (const name of EXPECTED_DEPLOYMENTS) expect(names("NetworkPolicy")).toContain(name);
    expect(new Set(manifests.map((manifest) => manifest.metadata.namespace ?? "platform"))).toEqual(
      new Set(["platform"]),
    );
  });

  test("each ingestor source runs in its own Deployment: one replica, replaced with Recreate, a PDB that lets drains evict it", () => {
    for (const source of INGEST_SOURCES) {
      const ingestor = find(objects(overlay), "Deployment", `chain-ingestor-${source}`);
      expect(ingestor.spec.replicas).toBe(1);
      expect(ingestor.spec.strategy).toEqual({ type: "Recreate" });
      const env = Object.fromEntries(
        (ingestor.spec.template.spec.containers[0].env as Array<{ name: string; value?: string }>).map((v) => [
          v.name,
          v.value,
        ]),
      );
      expect(env.INGEST_SOURCES).toBe(source);
      // Only the intents source listens to NATS; the others get neither the address nor egress to it.
      expect("NATS_URL" in env).toBe(source === "intents");
      expect(
        find(
          objects(overlay),
          "NetworkPolicy",
          "allow-egress-nats",
        ).spec.podSelector.matchExpressions[0].values.includes(`chain-ingestor-${source}`),
      ).toBe(source === "intents");
      expect(find(objects(overlay), "PodDisruptionBudget", `chain-ingestor-${source}`).spec).toMatchObject({
        maxUnavailable: 1,
      });
    }
  });

  test("data-query and projector shards select their group and projection", () => {
    const envOf = (name: string) =>
      Object.fromEntries(
        (
          find(objects(overlay), "Deployment", name).spec.template.spec.containers[0].env as Array<{
            name: string;
            value?: string;
          }>
        ).map((v) => [v.name, v.value]),
      );
    for (const group of DATA_QUERY_GROUPS)
      expect(envOf(`data-query-${group}`).DATA_QUERY_GROUPS).toBe(group === "market" ? "market,events" : group);
    for (const projection of PROJECTIONS) expect(envOf(`projector-${projection}`).PROJECTIONS).toBe(projection);
    const gateway = envOf("gateway");
    expect(gateway.DATA_ACCOUNTS_GRPC_TARGET).toBe("dns:///data-query-accounts.platform.svc.cluster.local:50051");
    expect(gateway.INTENTS_GRPC_TARGET).toBe("dns:///intents-gateway.platform.svc.cluster.local:50051");
    expect(envOf("intents-gateway").TC_GRPC_TARGET).toBe("dns:///tc.platform.svc.cluster.local:50051");
  });

  test("images come from the platform registry with the overlay's tag, one image per service", () => {
    const images = ofKind(objects(overlay), "Deployment").flatMap((deployment) =>
      (deployment.spec.template.spec.containers as Array<{ image: string }>).map((container) => container.image),
    );
    expect(new Set(images)).toEqual(new Set(SERVICES.map((service) => `registry.example/platform/${service}:0.1.0`)));
  });

  test("no Secret objects; the referenced Secrets are exactly the documented ones", async () => {
    const manifests = objects(overlay);
    expect(ofKind(manifests, "Secret")).toEqual([]);
    const text = JSON.stringify(manifests);
    const referenced = new Set(
      [...text.matchAll(/"secretName":"([^"]+)"|"secretKeyRef":\{[^}]*"name":"([^"]+)"/g)].map(
        (match) => match[1] ?? match[2],
      ),
    );
    expect(referenced).toEqual(new Set(REFERENCED_SECRETS));
    const readme = await readFile(join(K8S_DIR, "README.md"), "utf8");
    for (const secret of REFERENCED_SECRETS) expect(readme).toContain(`\`${secret}\``);
  });

  test("each Deployment that uses Kafka takes its own Kafka user from a Secret of its own; the others get none", () => {
    for (const deployment of ofKind(objects(overlay), "Deployment")) {
      const env = deployment.spec.template.spec.containers[0].env as Array<{ name: string; valueFrom?: any }>;
      const kafka = env.filter((variable) => variable.name.startsWith("KAFKA_SASL_"));
      if (!env.some((variable) => variable.name === "KAFKA_BROKERS")) {
        expect(kafka, deployment.metadata.name).toEqual([]);
        continue;
      }
      const secret = `kafka-${deployment.metadata.name}`;
      expect(kafka, deployment.metadata.name).toEqual([
        { name: "KAFKA_SASL_USERNAME", valueFrom: { secretKeyRef: { name: secret, key: "username" } } },
        { name: "KAFKA_SASL_PASSWORD", valueFrom: { secretKeyRef: { name: secret, key: "password" } } },
      ]);
    }
  });

  test("each service, and each projection, reaches Redis and NATS as its own user, its password from a Secret of its own", () => {
    for (const deployable of DEPLOYABLES) {
      // The projector's Deployments each connect as their projection's user (libs/grants).
      const user = deployable.service === "projector" ? deployable.name : deployable.service;
      const env = find(objects(overlay), "Deployment", deployable.name).spec.template.spec.containers[0].env as Array<{
        name: string;
        value?: string;
        valueFrom?: { secretKeyRef?: { name: string; key: string } };
      }>;
      const of = (name: string) => env.find((variable) => variable.name === name);
      for (const [server, prefix] of [
        ["redis", "REDIS"],
        ["nats", "NATS"],
      ] as const) {
        if (of(`${prefix}_URL`) === undefined) {
          expect(of(`${prefix}_PASSWORD`), `${deployable.name} ${prefix}_PASSWORD`).toBeUndefined();
          continue;
        }
        expect(of(`${prefix}_USERNAME`)?.value, `${deployable.name} ${prefix}_USERNAME`).toBe(user);
        expect(of(`${prefix}_PASSWORD`)?.valueFrom?.secretKeyRef, `${deployable.name} ${prefix}_PASSWORD`).toEqual({
          name: `${user}-${server}`,
          key: "password",
        });
      }
    }
  });

  test("every backend's gRPC Service is headless", () => {
    for (const deployable of DEPLOYABLES.filter((candidate) => candidate.role !== "gateway")) {
      expect(find(objects(overlay), "Service", deployable.name).spec.clusterIP).toBe("None");
    }
  });
});

test("dev: one replica minimum and small requests", () => {
  for (const hpa of ofKind(objects("dev"), "HorizontalPodAutoscaler")) expect(hpa.spec.minReplicas).toBe(1);
  for (const deployment of ofKind(objects("dev"), "Deployment")) {
    expect(deployment.spec.template.spec.containers[0].resources.requests).toEqual({ cpu: "50m", memory: "96Mi" });
  }
});

test("prod: the hot endpoints start wider and serving tiers keep half their pods through disruptions", () => {
  const prod = objects("prod");
  const dev = objects("dev");
  for (const name of ["gateway", "data-query-accounts", "data-query-market", "data-query-subnets"]) {
    expect(find(prod, "HorizontalPodAutoscaler", name).spec.minReplicas).toBeGreaterThanOrEqual(3);
    expect(find(prod, "HorizontalPodAutoscaler", name).spec.maxReplicas).toBeGreaterThan(
      find(dev, "HorizontalPodAutoscaler", name).spec.maxReplicas,
    );
    expect(find(prod, "PodDisruptionBudget", name).spec).toMatchObject({ minAvailable: "50%" });
    expect(find(prod, "PodDisruptionBudget", name).spec.maxUnavailable).toBeUndefined();
  }
  // A singleton's budget must let drains evict it.
  for (const name of INGESTORS)
    expect(find(prod, "PodDisruptionBudget", name).spec).toMatchObject({ maxUnavailable: 1 });
});

test("the gateway's HTTP port admits only the Ingress controller's namespace in every overlay", () => {
  for (const overlay of OVERLAYS) {
    const policy = find(objects(overlay), "NetworkPolicy", "gateway");
    expect([overlay, policy.spec.ingress]).toEqual([
      overlay,
      [
        {
          from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress-nginx" } } }],
          ports: [{ protocol: "TCP", port: "http" }],
        },
      ],
    ]);
  }
});

test("the base alone is not deployable: its external ranges are placeholders the overlays replace", async () => {
  const base = parseManifests(await renderKustomization(BASE_DIR));
  expect(formatProblems(validateManifests(base, schema).schema)).toBe("");
  const placeholders = checkRules(base, PROJECT_RULES).filter((problem) => problem.message.includes(UNCONFIGURED_CIDR));
  expect(placeholders.map((problem) => problem.object).sort()).toEqual([
    "NetworkPolicy/allow-egress-chain-rpc",
    "NetworkPolicy/allow-egress-kafka",
    "NetworkPolicy/allow-egress-nats",
    "NetworkPolicy/allow-egress-redis",
  ]);
});

// The checks bite: mutations of a rendered overlay and the problems they must raise.
type Mutation = (manifests: Manifest[]) => void;
const deployment = (manifests: Manifest[], name: string) => find(manifests, "Deployment", name);
const container = (manifests: Manifest[], name: string) => deployment(manifests, name).spec.template.spec.containers[0];
const schemaProblems = (mutate: Mutation) => {
  const manifests = clone("dev");
  mutate(manifests);
  return validateManifests(manifests, schema).schema;
};
const ruleProblems = (mutate: Mutation, overlay: OverlayName = "dev"): RuleProblem[] => {
  const manifests = clone(overlay);
  mutate(manifests);
  return checkRules(manifests, PROJECT_RULES);
};

/** Each case: a mutation of a rendered overlay (dev unless named) and the rule problem it must raise. */
const RULE_CASES: Array<[string, Mutation, RegExp, OverlayName?]> = [
  [
    "a Deployment without a readiness probe",
    (m) => void delete container(m, "data-query-subnets").readinessProbe,
    /\[probes\] Deployment\/data-query-subnets container data-query: has no readinessProbe/,
  ],
  [
    "a liveness probe on gRPC health",
    (m) => void (container(m, "auth").livenessProbe = { grpc: { port: 50051 } }),
    /livenessProbe must not use gRPC health/,
  ],
  [
    "a backend readiness probe that is not gRPC health",
    (m) => void (container(m, "tc").readinessProbe = { httpGet: { path: "/readyz", port: "metrics" } }),
    /tc container tc: readinessProbe must be the gRPC health check/,
  ],
  [
    "a container without a memory limit",
    (m) => void delete container(m, "gateway").resources.limits.memory,
    /\[resources\] Deployment\/gateway container gateway: has no memory limit/,
  ],
  [
    "a container without a preStop hook",
    (m) => void delete container(m, "projector-market").lifecycle,
    /projector-market container projector: has no preStop hook/,
  ],
  [
    "a grace period shorter than the drain",
    (m) => void (deployment(m, "auth").spec.template.spec.terminationGracePeriodSeconds = 10),
    /terminationGracePeriodSeconds 10 < preStop 5 s/,
  ],
  [
    "a container that may run as root",
    (m) => {
      delete container(m, "tc").securityContext.runAsNonRoot;
      delete deployment(m, "tc").spec.template.spec.securityContext.runAsNonRoot;
    },
    /tc container tc: must run with runAsNonRoot: true/,
  ],
  [
    "a writable root filesystem",
    (m) => void (container(m, "gateway").securityContext.readOnlyRootFilesystem = false),
    /gateway: must set readOnlyRootFilesystem: true/,
  ],
  [
    "an image tagged latest",
    (m) => void (container(m, "auth").image = "registry.example/platform/auth:latest"),
    /\[images\].*uses the tag latest/,
  ],
  [
    "an image without a tag",
    (m) => void (container(m, "auth").image = "registry.example:5000/platform/auth"),
    /\[images\].*has no tag or digest/,
  ],
  [
    "a Service whose selector matches no pods",
    (m) => void (find(m, "Service", "tc").spec.selector = { "app.kubernetes.io/name": "t-c" }),
    /\[services\] Service\/tc: selector matches no Deployment's or StatefulSet's pod labels/,
  ],
  [
    "a gRPC Service with a cluster IP",
    (m) => void delete find(m, "Service", "auth").spec.clusterIP,
    /Service\/auth: serves gRPC and must be headless/,
  ],
  [
    "an HPA whose target does not exist",
    (m) => void (find(m, "HorizontalPodAutoscaler", "tc").spec.scaleTargetRef.name = "tcx"),
    /HorizontalPodAutoscaler\/tc: scaleTargetRef Deployment\/tcx does not exist/,
  ],
  [
    "a Deployment without a PDB",
    (m) => void m.splice(m.indexOf(find(m, "PodDisruptionBudget", "auth")), 1),
    /\[disruption\] Deployment\/auth: must be selected by exactly one PodDisruptionBudget \(found 0\)/,
  ],
  [
    "a PDB that blocks drains",
    (m) => {
      const spec = find(m, "PodDisruptionBudget", "gateway").spec;
      delete spec.maxUnavailable;
      spec.minAvailable = "100%";
    },
    /PodDisruptionBudget\/gateway: allows no eviction/,
  ],
  [
    "a second native ingestor replica",
    (m) => void (deployment(m, "chain-ingestor-native").spec.replicas = 2),
    /chain-ingestor-native: is a singleton: replicas must be exactly 1/,
  ],
  [
    "an ingestor rolled out with RollingUpdate",
    (m) => void (deployment(m, "chain-ingestor-intents").spec.strategy = { type: "RollingUpdate" }),
    /chain-ingestor-intents: is a singleton: strategy must be Recreate/,
  ],
  [
    "an autoscaled ingestor",
    (m) => {
      const hpa = structuredClone(find(m, "HorizontalPodAutoscaler", "tc"));
      hpa.metadata.name = "chain-ingestor-native";
      hpa.spec.scaleTargetRef.name = "chain-ingestor-native";
      m.push(hpa);
    },
    /chain-ingestor-native: is a singleton and must have no HPA/,
  ],
  [
    "an ingestor source in two Deployments",
    (m) => {
      (container(m, "chain-ingestor-native").env as Array<{ name: string; value?: string }>).find(
        (v) => v.name === "INGEST_SOURCES",
      )!.value = "native,intents";
    },
    /INGEST_SOURCES=intents: must run in exactly one Deployment \(found 2: chain-ingestor-intents, chain-ingestor-native\)/,
  ],
  [
    "an ingestor without INGEST_SOURCES (runs every source)",
    (m) => {
      const env = container(m, "chain-ingestor-intents").env as Array<{ name: string }>;
      env.splice(
        env.findIndex((v) => v.name === "INGEST_SOURCES"),
        1,
      );
    },
    /INGEST_SOURCES=native: must run in exactly one Deployment \(found 2/,
  ],
  [
    "an ingestor source nobody runs",
    (m) => void m.splice(m.indexOf(deployment(m, "chain-ingestor-native")), 1),
    /INGEST_SOURCES=native: must run in exactly one Deployment \(found 0\)/,
  ],
  [
    "an unknown ingestor source",
    (m) => {
      (container(m, "chain-ingestor-native").env as Array<{ name: string; value?: string }>).find(
        (v) => v.name === "INGEST_SOURCES",
      )!.value = "native,blocks";
    },
    /chain-ingestor-native: INGEST_SOURCES lists blocks, which is none of intents, native/,
  ],
  [
    "an autoscaled Deployment that pins replicas",
    (m) => void (deployment(m, "gateway").spec.replicas = 3),
    /gateway: is autoscaled: leave spec.replicas to the HPA/,
  ],
  [
    "a Secret with data",
    (m) =>
      void m.push({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "auth-pepper" },
        data: { pepper: "c2VjcmV0" },
      }),
    /\[secrets\] Secret\/auth-pepper: Secret with data/,
  ],
  [
    "a ConfigMap holding a PEM block",
    (m) => {
      find(m, "ConfigMap", ofKind(m, "ConfigMap")[0]!.metadata.name).data!.SIGNING =
        "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI\n-----END PRIVATE KEY-----";
    },
    /value of SIGNING contains a PEM block/,
  ],
  [
    "a ConfigMap key named like a secret",
    (m) =>
      void (ofKind(m, "ConfigMap").find((c) => c.metadata.name.startsWith("platform-config"))!.data = {
        ...(ofKind(m, "ConfigMap").find((c) => c.metadata.name.startsWith("platform-config")) as any).data,
        AUTH_PEPPER: "x",
      }),
    /key AUTH_PEPPER looks like a secret/,
  ],
  [
    "a Redis URL with a password in a ConfigMap",
    (m) => {
      const config = ofKind(m, "ConfigMap").find((c) => c.metadata.name.startsWith("platform-config")) as any;
      config.data.REDIS_URL = "redis://:hunter2@redis.dev.internal.example:6379";
    },
    /value of REDIS_URL has a URL with a password/,
  ],
  [
    "an RPC URL that embeds an API key",
    (m) => {
      const chains = ofKind(m, "ConfigMap").find((c) => c.metadata.name.startsWith("platform-chains")) as any;
      chains.data["chains.json"] = chains.data["chains.json"].replace(
        "https://origin-rpc.dev.example",
        "https://eth-sepolia.provider.example/v2/Ab3dEf6hIj9kLm2nOp5qRs8tUv",
      );
    },
    /chains\.json has a URL whose path looks like it embeds an API key/,
  ],
  [
    "a backend listening on loopback",
    (m) => {
      (container(m, "auth").env as Array<{ name: string; value?: string }>).find((v) => v.name === "GRPC_HOST")!.value =
        "127.0.0.1";
    },
    /auth container auth: GRPC_HOST=127\.0\.0\.1 listens on loopback/,
  ],
  [
    "a gateway target that is not a dns:/// name",
    (m) => {
      (container(m, "gateway").env as Array<{ name: string; value?: string }>).find(
        (v) => v.name === "AUTH_GRPC_TARGET",
      )!.value = "auth:50051";
    },
    /AUTH_GRPC_TARGET=auth:50051 must be dns:\/\/\//,
  ],
  [
    "a gateway target in the wrong namespace",
    (m) => {
      (container(m, "gateway").env as Array<{ name: string; value?: string }>).find(
        (v) => v.name === "TC_GRPC_TARGET",
      )!.value = "dns:///tc.default.svc.cluster.local:50051";
    },
    /TC_GRPC_TARGET names Service tc in namespace default, which does not exist/,
  ],
  [
    "a reference to a missing ConfigMap key",
    (m) => {
      (container(m, "tc").env as Array<{ name: string; valueFrom?: any }>).find(
        (v) => v.name === "TC_CURRENT_VERSION",
      )!.valueFrom.configMapKeyRef.key = "TC_VERSION";
    },
    /env TC_CURRENT_VERSION refers to a missing key TC_VERSION/,
  ],
  [
    "a chains file that is not mounted",
    (m) =>
      void (container(m, "chain-ingestor-native").volumeMounts = container(
        m,
        "chain-ingestor-native",
      ).volumeMounts.filter((v: { name: string }) => v.name !== "chains")),
    /CHAINS_FILE=\/etc\/platform\/chains\/chains\.json is not a file of a mounted ConfigMap/,
  ],
  [
    "a backend whose ingress policy is gone",
    (m) => void m.splice(m.indexOf(find(m, "NetworkPolicy", "data-query-accounts")), 1),
    /gateway: NetworkPolicies block DATA_ACCOUNTS_GRPC_TARGET: gateway cannot reach data-query-accounts on 50051/,
  ],
  [
    "a gateway without egress to a backend",
    (m) => {
      find(m, "NetworkPolicy", "gateway").spec.egress[0].to[0].podSelector.matchExpressions[0].values = ["auth"];
    },
    /gateway cannot reach tc on 50051/,
  ],
  [
    "a backend open to every pod",
    (m) => void (find(m, "NetworkPolicy", "auth").spec.ingress = [{ ports: [{ protocol: "TCP", port: "grpc" }] }]),
    /Deployment\/auth: accepts gRPC on 50051 from outside the namespace/,
  ],
  [
    "auth's key administration listening beyond loopback",
    (m) =>
      void (container(m, "auth").env.find((variable: { name: string }) => variable.name === "ADMIN_GRPC_HOST").value =
        "0.0.0.0"),
    /Deployment\/auth container auth: ADMIN_GRPC_HOST=0\.0\.0\.0: key administration must listen on loopback only/,
  ],
  [
    "the gateway's ops port (metrics, detailed readiness) open to the public",
    (m) =>
      void find(m, "NetworkPolicy", "gateway").spec.ingress.push({ ports: [{ protocol: "TCP", port: "metrics" }] }),
    /Deployment\/gateway: serves \/metrics and the detailed \/readyz on 9464 to anyone outside the namespace/,
  ],
  [
    "the gateway's HTTP port open to any source (a direct client could forge X-Forwarded-For)",
    (m) => void delete find(m, "NetworkPolicy", "gateway").spec.ingress[0].from,
    /Deployment\/gateway: accepts HTTP on 8080 from anyone outside the cluster, not only the Ingress controller \(namespace ingress-nginx\)/,
  ],
  [
    "the gateway's HTTP port open to the pods of every namespace",
    (m) => void (find(m, "NetworkPolicy", "gateway").spec.ingress[0].from = [{ namespaceSelector: {} }]),
    /Deployment\/gateway: accepts HTTP on 8080 from pods of namespace default/,
  ],
  [
    "the Ingress controller shut out of the gateway",
    (m) =>
      void (find(m, "NetworkPolicy", "gateway").spec.ingress[0].from[0].namespaceSelector.matchLabels[
        "kubernetes.io/metadata.name"
      ] = "ingress"),
    /Deployment\/gateway: is the public entry but the Ingress controller \(namespace ingress-nginx\) cannot reach it on 8080/,
  ],
  [
    "tc reachable from a projector",
    (m) => {
      find(m, "NetworkPolicy", "tc").spec.ingress[0].from[0].podSelector.matchExpressions[0].values.push(
        "projector-intents",
      );
      find(m, "NetworkPolicy", "projector-intents").spec.egress = [{ to: [{ podSelector: {} }] }];
    },
    /Deployment\/tc: accepts gRPC from projector-intents, which is not configured to call it/,
  ],
  [
    "no DNS egress",
    (m) => void m.splice(m.indexOf(find(m, "NetworkPolicy", "allow-egress-dns")), 1),
    /cannot reach kube-dns on port 53/,
  ],
  [
    "no default deny",
    (m) => void m.splice(m.indexOf(find(m, "NetworkPolicy", "default-deny-all")), 1),
    /needs a default-deny policy/,
  ],
  [
    "Redis moved to a port the policy does not open",
    (m) => {
      const config = ofKind(m, "ConfigMap").find((c) => c.metadata.name.startsWith("platform-config")) as any;
      config.data.REDIS_URL = "redis://redis.dev.internal.example:6390";
    },
    /no egress policy lets it reach REDIS_URL on port 6390/,
  ],
  [
    "Prometheus shut out",
    (m) => void m.splice(m.indexOf(find(m, "NetworkPolicy", "allow-metrics-scrape")), 1),
    /Prometheus \(namespace monitoring\) cannot scrape port 9464/,
  ],
];

describe("the checks bite", () => {
  test("an unknown field is reported with its path", () => {
    const problems = schemaProblems((manifests) => {
      container(manifests, "data-query-market").bogusField = true;
    });
    expect(problems).toEqual([
      {
        object: "Deployment/data-query-market",
        path: ".spec.template.spec.containers[0].bogusField",
        message: 'unknown field "bogusField" (not in V1Container)',
      },
    ]);
  });

  test("a misspelt field anywhere in the tree is reported", () => {
    const problems = schemaProblems((manifests) => {
      const hpa = find(manifests, "HorizontalPodAutoscaler", "gateway");
      hpa.spec.minReplica = hpa.spec.minReplicas;
      find(manifests, "NetworkPolicy", "gateway").spec.ingress[0].form = [];
      find(manifests, "Service", "auth").spec.ports[0].targetport = 50051;
    });
    expect(problems.map((problem) => `${problem.object}${problem.path}`)).toEqual([
      "Service/auth.spec.ports[0].targetport",
      "HorizontalPodAutoscaler/gateway.spec.minReplica",
      "NetworkPolicy/gateway.spec.ingress[0].form",
    ]);
  });

  test("wrong types, missing required fields and unknown kinds are reported", () => {
    const problems = schemaProblems((manifests) => {
      deployment(manifests, "chain-ingestor-intents").spec.replicas = "1";
      delete container(manifests, "tc").name;
      container(manifests, "auth").readinessProbe.grpc.port = 50051.5;
      manifests.push({ apiVersion: "apps/v1beta1", kind: "Deployment", metadata: { name: "legacy" } });
    });
    expect(problems.map((problem) => `${problem.object}${problem.path}: ${problem.message}`)).toEqual(
      expect.arrayContaining([
        'Deployment/chain-ingestor-intents.spec.replicas: must be a number, not string "1"',
        "Deployment/tc.spec.template.spec.containers[0].name: is required",
        "Deployment/auth.spec.template.spec.containers[0].readinessProbe.grpc.port: must be an integer (int32)",
        `Deployment/legacy: no schema for apiVersion apps/v1beta1 kind Deployment in Kubernetes ${KUBERNETES_VERSION}`,
      ]),
    );
  });

  test.each(RULE_CASES)("%s is reported", (_name, mutate, expected, overlay) => {
    const problems = ruleProblems(mutate, overlay);
    expect(formatProblems(problems)).toMatch(expected);
  });
});
