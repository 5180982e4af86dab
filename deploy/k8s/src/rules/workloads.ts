import { selectorMatches } from "../netpol.js";
import { mountedConfigFile, parseQuantity, resolveEnv } from "./containerConfig.js";
import { type Container, type DeploymentView, id, nsOf, type Report, type RuleContext } from "./ruleContext.js";

/** The image without its tag or digest. */
export function imageName(image: string | undefined): string {
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

// ---- Workloads: probes, resources, shutdown, security, images, scraping.
export function checkWorkloads(context: RuleContext): void {
  const { report, workloads } = context;
  for (const workload of workloads) {
    checkPodTemplate(report, workload);
    for (const container of [...(workload.pod.initContainers ?? []), ...workload.containers])
      checkContainerHardening(report, workload, container);
    for (const container of workload.pod.initContainers ?? []) {
      const where = `${id(workload.manifest)} init container ${container.name}`;
      checkResources(report, where, container);
      checkConfigReferences(context, workload, where, container);
    }
    for (const container of workload.containers) checkContainerConfiguration(context, workload, container);
    checkVolumes(context, workload);
    // The services export metrics; the database and batch pods have no exporter (README, PostgreSQL).
    if (workload.kind === "Deployment") checkScraping(report, workload);
    if (workload.kind === "StatefulSet") checkStatefulSet(context, workload);
    if (workload.kind === "Job" || workload.kind === "CronJob") checkBatch(report, workload);
  }
}

/** Long-running pods: probes and a graceful stop. Batch pods run to completion and have neither. */
const serves = (workload: DeploymentView) => workload.kind === "Deployment" || workload.kind === "StatefulSet";

/**
 * A StatefulSet: a governing Service that is headless and selects its pods, its replicas written
 * down, a claim per pod that asks for storage, and volumes that outlive the set.
 */
function checkStatefulSet(context: RuleContext, workload: DeploymentView): void {
  const { report, services } = context;
  const object = id(workload.manifest);
  const spec = (workload.manifest.spec ?? {}) as {
    serviceName?: string;
    replicas?: number;
    volumeClaimTemplates?: Array<{
      metadata?: { name?: string };
      spec?: { resources?: { requests?: { storage?: string } } };
    }>;
    persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string; whenScaled?: string };
  };
  const governing = services.find(
    (service) =>
      service.metadata.name === spec.serviceName && nsOf(service, context.options.namespace) === workload.namespace,
  );
  const governingSpec = (governing?.spec ?? {}) as { clusterIP?: string; selector?: Record<string, string> };
  if (!governing) report("statefulsets", object, `serviceName ${spec.serviceName} names no Service`);
  else if (
    governingSpec.clusterIP !== "None" ||
    !selectorMatches({ matchLabels: governingSpec.selector ?? {} }, workload.podLabels)
  )
    report("statefulsets", object, `serviceName ${spec.serviceName} must be a headless Service selecting its pods`);
  if (spec.replicas === undefined)
    report("statefulsets", object, "must set replicas (the number of servers is a decision)");
  const claims = spec.volumeClaimTemplates ?? [];
  if (claims.length === 0)
    report("statefulsets", object, "has no volumeClaimTemplates: its data would not survive the pod");
  for (const claim of claims)
    if (!claim.spec?.resources?.requests?.storage)
      report("statefulsets", object, `volumeClaimTemplate ${claim.metadata?.name} requests no storage`);
  const retention = spec.persistentVolumeClaimRetentionPolicy;
  if (retention && (retention.whenDeleted === "Delete" || retention.whenScaled === "Delete"))
    report("statefulsets", object, "must retain its volumes when deleted or scaled down (they hold the data)");
}

/** Jobs and CronJobs end: a bounded number of retries and a deadline; a CronJob never overlaps itself. */
function checkBatch(report: Report, workload: DeploymentView): void {
  const object = id(workload.manifest);
  const outer = (workload.manifest.spec ?? {}) as {
    concurrencyPolicy?: string;
    jobTemplate?: { spec?: { backoffLimit?: number; activeDeadlineSeconds?: number } };
    backoffLimit?: number;
    activeDeadlineSeconds?: number;
  };
  const job = workload.kind === "CronJob" ? (outer.jobTemplate?.spec ?? {}) : outer;
  if (job.backoffLimit === undefined) report("batch", object, "must set backoffLimit");
  if (job.activeDeadlineSeconds === undefined)
    report("batch", object, "must set activeDeadlineSeconds (a hung run would hold its volumes for ever)");
  if (workload.kind === "CronJob" && outer.concurrencyPolicy !== "Forbid")
    report("batch", object, "must set concurrencyPolicy: Forbid (two runs would share its volumes)");
}

/** Labels and selector, at least one container, and the pod's own hardening. */
function checkPodTemplate(report: Report, deployment: DeploymentView): void {
  const object = id(deployment.manifest);
  if (!deployment.podLabels["app.kubernetes.io/name"])
    report("labels", object, "pod template has no app.kubernetes.io/name label");
  // Jobs get their selector from the API server.
  if (
    serves(deployment) &&
    (!deployment.selector ||
      !selectorMatches(deployment.selector, deployment.podLabels) ||
      Object.keys(deployment.selector.matchLabels ?? {}).length === 0)
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
  if (serves(deployment)) checkProbes(report, where, container);
  checkResources(report, where, container);
  const env = resolveEnv(container, manifests, deployment.namespace);
  if (serves(deployment)) checkShutdown(report, deployment, where, container, env);
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
  // A StatefulSet's claim templates are volumes of its pods too.
  const claimTemplates = (
    (deployment.manifest.spec as { volumeClaimTemplates?: Array<{ metadata?: { name?: string } }> } | undefined)
      ?.volumeClaimTemplates ?? []
  ).map((template) => template.metadata?.name);
  for (const mount of container.volumeMounts ?? []) {
    if (!(pod.volumes ?? []).some((volume) => volume.name === mount.name) && !claimTemplates.includes(mount.name))
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

/** The pod's volumes refer to ConfigMaps and keys that exist, to claims that exist, and to documented Secrets only. */
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
    const claim = volume.persistentVolumeClaim?.claimName;
    if (claim !== undefined && !claimExists(context, claim, deployment.namespace))
      report("references", object, `volume ${volume.name} refers to a missing PersistentVolumeClaim ${claim}`);
    if (volume.secret && !options.documentedSecrets.includes(volume.secret.secretName ?? "")) {
      report("secrets", object, `volume ${volume.name} refers to an undocumented Secret ${volume.secret.secretName}`);
    }
  }
}

/** A PersistentVolumeClaim of the manifests, or one a StatefulSet's claim template makes for one of its pods. */
function claimExists(context: RuleContext, claim: string, namespace: string): boolean {
  const { byKind, options, workloads } = context;
  if (
    byKind("PersistentVolumeClaim").some(
      (pvc) => pvc.metadata.name === claim && nsOf(pvc, options.namespace) === namespace,
    )
  )
    return true;
  return workloads.some((workload) => {
    if (workload.kind !== "StatefulSet" || workload.namespace !== namespace) return false;
    const spec = (workload.manifest.spec ?? {}) as {
      replicas?: number;
      volumeClaimTemplates?: Array<{ metadata?: { name?: string } }>;
    };
    return (spec.volumeClaimTemplates ?? []).some((template) =>
      Array.from(
        { length: spec.replicas ?? 1 },
        (_, ordinal) => `${template.metadata?.name}-${workload.name}-${ordinal}`,
      ).includes(claim),
    );
  });
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
