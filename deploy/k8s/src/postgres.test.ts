import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { DEPLOYABLES, REFERENCED_SECRETS } from "./deployables.js";
import { generateOperations } from "./generate.js";
import { parseManifests, renderOverlay } from "./kustomize.js";
import type { Manifest } from "./manifests.js";
import { NetworkPolicies, type NetworkPolicyObject } from "./netpol.js";
import { K8S_DIR, OVERLAYS, type OverlayName } from "./paths.js";
import { backupScript, POSTGRES_IMAGE, rolesSql } from "./postgres.js";
import { POSTGRES_ROLES, POSTGRES_SECRETS } from "./postgresRoles.js";
import { checkRules, formatProblems } from "./rules/checkRules.js";
import { parseQuantity } from "./rules/containerConfig.js";
import { workloadsOf } from "./rules/ruleContext.js";
import { StrictSchema } from "./schema.js";
import { PROJECT_RULES, validateManifests } from "./validate.js";

/*
 * PostgreSQL in the rendered overlays: the servers, their backups and migrations, who reaches them,
 * and the checks that hold them so (the schema and the project rules run over every object in
 * validate.test.ts; here, what is particular to the history store).
 */

let schema: StrictSchema;
const rendered = new Map<OverlayName, Manifest[]>();
beforeAll(async () => {
  schema = await StrictSchema.load();
  await Promise.all(OVERLAYS.map(async (overlay) => rendered.set(overlay, await renderOverlay(overlay))));
});

type Any = Manifest & { spec: any; data?: Record<string, string> };
const objects = (overlay: OverlayName) => rendered.get(overlay)! as Any[];
const find = (manifests: Manifest[], kind: string, name: string) => {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name}`);
  return found as Any;
};
const podOf = (manifest: Any) =>
  (manifest.kind === "CronJob" ? manifest.spec.jobTemplate.spec.template.spec : manifest.spec.template.spec) as any;
const envOf = (container: { env?: Array<{ name: string; value?: string; valueFrom?: any }> }) =>
  Object.fromEntries((container.env ?? []).map((variable) => [variable.name, variable])) as Record<string, any>;

/** The deployables the brief names: every projection's projector, every data-query group. */
const PROJECTORS = ["projector-accounts", "projector-intents", "projector-market", "projector-subnets"];
const DATA_QUERIES = ["data-query-accounts", "data-query-market", "data-query-subnets"];
const NO_POSTGRES = [
  "gateway",
  "auth",
  "tc",
  "intents-gateway",
  "chain-ingestor-intents",
  "chain-ingestor-native",
  "chain-ingestor-price",
];

describe.each(OVERLAYS)("overlay %s: the servers", (overlay) => {
  test("a primary and a streaming replica, one pod each, a volume per pod, the official image pinned by tag", () => {
    for (const name of ["postgres-primary", "postgres-replica"]) {
      const set = find(objects(overlay), "StatefulSet", name);
      expect(set.spec.replicas).toBe(1);
      expect(set.spec.serviceName).toBe("postgres");
      expect(set.spec.volumeClaimTemplates.map((claim: any) => claim.metadata.name)).toEqual(["data"]);
      expect(set.spec.persistentVolumeClaimRetentionPolicy).toEqual({ whenDeleted: "Retain", whenScaled: "Retain" });
      const pod = podOf(set);
      for (const container of [...(pod.initContainers ?? []), ...pod.containers])
        expect(container.image, `${name} ${container.name}`).toBe(POSTGRES_IMAGE);
    }
    // The replica clones the primary as replicator before its server starts, and streams as replicator.
    const replica = podOf(find(objects(overlay), "StatefulSet", "postgres-replica"));
    expect(replica.initContainers.map((container: any) => container.command)).toEqual([
      ["/bin/bash", "/etc/postgresql-scripts/replica-init.sh"],
    ]);
    expect(envOf(replica.initContainers[0]).PGPASSWORD.valueFrom.secretKeyRef).toEqual({
      name: "postgres-replicator",
      key: "password",
    });
    expect(replica.containers[0].args.slice(0, 2)).toEqual(["-c", "config_file=/etc/postgresql/replica.conf"]);
    // The primary initialises from the roles' Secrets and the bootstrap SQL, at the paths the SQL reads.
    const primary = podOf(find(objects(overlay), "StatefulSet", "postgres-primary"));
    const mounts = primary.containers[0].volumeMounts.map((mount: any) => mount.mountPath);
    expect(mounts).toContain("/docker-entrypoint-initdb.d");
    for (const secret of POSTGRES_SECRETS) expect(mounts).toContain(`/var/run/secrets/platform/${secret}`);
    expect(envOf(primary.containers[0]).POSTGRES_PASSWORD_FILE.value).toBe(
      "/var/run/secrets/platform/postgres-superuser/password",
    );
  });

  test("every PostgreSQL pod meets the restricted Pod Security Standard as uid 999, with scratch space for the read-only root", () => {
    const manifests = objects(overlay);
    for (const name of ["postgres-primary", "postgres-replica", "postgres-backup"]) {
      const manifest = manifests.find(
        (m) => m.metadata.name === name && (m.kind === "StatefulSet" || m.kind === "CronJob"),
      )!;
      const pod = podOf(manifest as Any);
      expect(pod.securityContext, name).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 999,
        runAsGroup: 999,
        fsGroup: 999,
        seccompProfile: { type: "RuntimeDefault" },
      });
      for (const container of [...(pod.initContainers ?? []), ...pod.containers])
        expect(container.securityContext, `${name} ${container.name}`).toEqual({
          runAsNonRoot: true,
          runAsUser: 999,
          runAsGroup: 999,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          privileged: false,
          capabilities: { drop: ["ALL"] },
          seccompProfile: { type: "RuntimeDefault" },
        });
    }
    for (const name of ["postgres-primary", "postgres-replica"]) {
      const container = podOf(find(manifests, "StatefulSet", name)).containers[0];
      expect(container.volumeMounts.map((mount: any) => mount.mountPath)).toEqual(
        expect.arrayContaining(["/var/run/postgresql", "/tmp", "/dev/shm", "/var/lib/postgresql/data"]),
      );
      for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"])
        expect(container[probe].exec.command[0], `${name} ${probe}`).toBe("pg_isready");
      expect(container.lifecycle.preStop.exec.command.slice(0, 2)).toEqual(["pg_ctl", "stop"]);
    }
  });
});

describe.each(OVERLAYS)("overlay %s: who connects to PostgreSQL", (overlay) => {
  test("the projectors and data-query connect as their own roles, with passwords from their own Secrets; no other deployable gets Postgres", () => {
    const manifests = objects(overlay);
    const config = manifests.find((m) => m.kind === "ConfigMap" && m.metadata.name.startsWith("platform-config"))!;
    for (const name of [...PROJECTORS, ...DATA_QUERIES]) {
      const env = envOf(podOf(find(manifests, "Deployment", name)).containers[0]);
      const role = name.startsWith("projector-") ? "projector" : "data_query";
      expect(env.POSTGRES_USERNAME?.value, name).toBe(role);
      expect(env.POSTGRES_PASSWORD?.valueFrom, name).toEqual({
        secretKeyRef: { name: POSTGRES_ROLES[role].secret, key: "password" },
      });
      const key = env.POSTGRES_URL?.valueFrom?.configMapKeyRef?.key;
      // data-query reads the primary by default (postgres.ts POSTGRES_READ_URL says why).
      expect(config.data![key], name).toBe("postgres://postgres-primary.platform.svc:5432/platform");
    }
    for (const name of NO_POSTGRES) {
      const env = envOf(podOf(find(manifests, "Deployment", name)).containers[0]);
      expect(
        Object.keys(env).filter((variable) => variable.startsWith("POSTGRES")),
        name,
      ).toEqual([]);
    }
  });

  test("history-migrate runs the projector image's node dist/migrate.js as history_owner", () => {
    const job = find(objects(overlay), "Job", "history-migrate");
    const container = podOf(job).containers[0];
    expect(container.image).toBe("registry.example/platform/projector:0.1.0");
    expect(container.command).toEqual(["node", "dist/migrate.js"]);
    const env = envOf(container);
    expect(env.POSTGRES_USERNAME.value).toBe("history_owner");
    expect(env.POSTGRES_PASSWORD.valueFrom).toEqual({
      secretKeyRef: { name: "postgres-history-owner", key: "password" },
    });
    expect(env.POSTGRES_URL.valueFrom.configMapKeyRef.key).toBe("POSTGRES_URL");
  });

  test("the backup CronJob: pg_basebackup as replicator, tar, gzip, WAL streamed, onto its own volume, never two at once", () => {
    const cron = find(objects(overlay), "CronJob", "postgres-backup");
    expect(cron.spec.concurrencyPolicy).toBe("Forbid");
    const pod = podOf(cron);
    expect(pod.volumes.find((volume: any) => volume.name === "backups").persistentVolumeClaim).toEqual({
      claimName: "postgres-backups",
    });
    const env = envOf(pod.containers[0]);
    expect(env.PGPASSWORD.valueFrom.secretKeyRef).toEqual({ name: "postgres-replicator", key: "password" });
    expect(env.BACKUP_KEEP.value).toBe("7");
    const script = backupScript();
    for (const flag of ["--username=replicator", "--format=tar", "--gzip", "--wal-method=stream", "--no-password"])
      expect(script).toContain(flag);
  });

  test("only the listed deployables reach PostgreSQL: the primary from projectors, data-query, the migrations, the replica and the backups; the replica from data-query", () => {
    expect(PROJECT_RULES.databases).toEqual([
      {
        workload: "postgres-primary",
        port: 5432,
        clients: [...DATA_QUERIES, "history-migrate", "postgres-backup", "postgres-replica", ...PROJECTORS].sort(),
      },
      { workload: "postgres-replica", port: 5432, clients: [...DATA_QUERIES].sort() },
    ]);
    // And, independently of the rules, the policies themselves: who of every workload reaches 5432.
    const manifests = objects(overlay);
    const policies = new NetworkPolicies(
      manifests.filter((m) => m.kind === "NetworkPolicy") as unknown as NetworkPolicyObject[],
      "platform",
    );
    const workloads = workloadsOf(manifests, "platform");
    const reaching = (server: string) => {
      const target = workloads.find((workload) => workload.name === server)!;
      return workloads
        .filter((source) => source !== target && policies.allows(source.endpoint, target.endpoint, 5432))
        .map((source) => source.name)
        .sort();
    };
    expect(reaching("postgres-primary")).toEqual(PROJECT_RULES.databases[0]!.clients);
    expect(reaching("postgres-replica")).toEqual(PROJECT_RULES.databases[1]!.clients);
    for (const name of NO_POSTGRES) expect(reaching("postgres-primary")).not.toContain(name);
  });

  test("every Secret the PostgreSQL objects refer to is documented, and each role's Secret is used", async () => {
    const manifests = objects(overlay);
    const referenced = new Set<string>();
    for (const workload of workloadsOf(manifests, "platform")) {
      for (const container of [...(workload.pod.initContainers ?? []), ...workload.containers])
        for (const variable of container.env ?? [])
          if (variable.valueFrom?.secretKeyRef?.name) referenced.add(variable.valueFrom.secretKeyRef.name);
      for (const volume of workload.pod.volumes ?? [])
        if (volume.secret?.secretName) referenced.add(volume.secret.secretName);
    }
    const postgres = [...referenced].filter((name) => name.startsWith("postgres-")).sort();
    expect(postgres).toEqual([...POSTGRES_SECRETS].sort());
    expect(POSTGRES_SECRETS.sort()).toEqual(
      [
        "postgres-data-query",
        "postgres-history-owner",
        "postgres-projector",
        "postgres-replicator",
        "postgres-superuser",
      ].sort(),
    );
    for (const secret of postgres) expect(REFERENCED_SECRETS).toContain(secret);
    const readme = await readFile(join(K8S_DIR, "README.md"), "utf8");
    const secretsSection = readme.slice(readme.indexOf("### Secrets"), readme.indexOf("## 3. Apply"));
    for (const secret of POSTGRES_SECRETS) expect(secretsSection).toContain(`\`${secret}\``);
  });
});

test("the bootstrap SQL reads every password from its Secret's mounted file and writes none", () => {
  const sql = rolesSql();
  for (const [role, { secret }] of Object.entries(POSTGRES_ROLES)) {
    expect(sql).toContain(`\\set ${role}_password \`cat :secrets_dir/${secret}/password\``);
    expect(sql).toMatch(new RegExp(`CREATE ROLE ${role} LOGIN (REPLICATION )?PASSWORD :'${role}_password';`));
  }
  // No literal password anywhere: every PASSWORD is followed by a psql variable.
  expect([...sql.matchAll(/PASSWORD\s+(\S+)/g)].map((match) => match[1]!.slice(0, 2))).toEqual(Array(4).fill(":'"));
  expect(sql).toContain("\\set secrets_dir /var/run/secrets/platform");
});

test("prod gives PostgreSQL more storage and memory than dev, and each server's shared memory fits its limit", () => {
  const storage = (overlay: OverlayName) =>
    parseQuantity(
      find(objects(overlay), "StatefulSet", "postgres-primary").spec.volumeClaimTemplates[0].spec.resources.requests
        .storage,
    )!;
  expect(storage("prod")).toBeGreaterThan(storage("dev"));
  const backups = (overlay: OverlayName) =>
    parseQuantity(find(objects(overlay), "PersistentVolumeClaim", "postgres-backups").spec.resources.requests.storage)!;
  expect(backups("prod")).toBeGreaterThan(backups("dev"));
  for (const overlay of OVERLAYS) {
    for (const name of ["postgres-primary", "postgres-replica"]) {
      const container = podOf(find(objects(overlay), "StatefulSet", name)).containers[0];
      const settings = (container.args as string[]).filter((arg) => arg.startsWith("shared_buffers="));
      // The last -c wins; without one, the file's 256MB.
      const sharedBuffers = parseQuantity(
        (settings.at(-1)?.split("=")[1] ?? "256MB").replace(/MB$/, "Mi").replace(/GB$/, "Gi"),
      )!;
      const limit = parseQuantity(container.resources.limits.memory)!;
      expect(sharedBuffers, `${overlay} ${name}`).toBeLessThanOrEqual(limit / 3);
    }
  }
});

test("the restore Job (operations/postgres-restore.yaml) is valid and meets the project's hardening rules beside the base", async () => {
  const [text] = [...generateOperations().values()];
  const onDisk = await readFile(join(K8S_DIR, "operations", "postgres-restore.yaml"), "utf8");
  expect(onDisk).toBe(text);
  const restore = parseManifests(text!);
  expect(restore.map((manifest) => `${manifest.kind}/${manifest.metadata.name}`)).toEqual(["Job/postgres-restore"]);
  for (const overlay of OVERLAYS) {
    const manifests = [...objects(overlay), ...restore];
    const report = validateManifests(manifests, schema);
    expect(formatProblems(report.schema)).toBe("");
    // Its claims exist (the backups', and the primary's from its claim template); it reaches nothing.
    expect(formatProblems(report.rules)).toBe("");
  }
  const pod = podOf(restore[0] as Any);
  expect(pod.volumes.map((volume: any) => volume.persistentVolumeClaim?.claimName).filter(Boolean)).toEqual([
    "postgres-backups",
    "data-postgres-primary-0",
  ]);
});

// The checks bite: mutations of the rendered dev overlay and the problems they must raise.
type Mutation = (manifests: Any[]) => void;
const policy = (m: Any[], name: string) => find(m, "NetworkPolicy", name);
const CASES: Array<[string, Mutation, RegExp]> = [
  [
    "the gateway allowed into the primary",
    (m) => {
      policy(m, "postgres-primary").spec.ingress[0].from[0].podSelector.matchExpressions[0].values.push("gateway");
      policy(m, "gateway").spec.egress.push({ ports: [{ protocol: "TCP", port: 5432 }] });
    },
    /\[database\] StatefulSet\/postgres-primary: accepts connections on 5432 from gateway, which is not one of its clients/,
  ],
  [
    "a projector reaching the replica",
    (m) => {
      policy(m, "postgres-replica").spec.ingress[0].from[0].podSelector.matchExpressions[0].values.push(
        "projector-market",
      );
      policy(m, "projector-market").spec.egress.push({ ports: [{ protocol: "TCP", port: 5432 }] });
    },
    /StatefulSet\/postgres-replica: accepts connections on 5432 from projector-market/,
  ],
  [
    "data-query without its egress to PostgreSQL",
    (m) => {
      const egress = policy(m, "data-query-subnets").spec.egress as Array<{ ports: Array<{ port: number }> }>;
      policy(m, "data-query-subnets").spec.egress = egress.filter((rule) => rule.ports[0]!.port !== 5432);
    },
    /NetworkPolicies block POSTGRES_URL: data-query-subnets cannot reach postgres-primary on 5432[\s\S]*its client data-query-subnets cannot reach it on 5432/,
  ],
  [
    "the primary open to every source",
    (m) => void (policy(m, "postgres-primary").spec.ingress = [{ ports: [{ protocol: "TCP", port: "postgres" }] }]),
    /StatefulSet\/postgres-primary: accepts connections on 5432 from anyone outside the cluster/,
  ],
  [
    "the backups without egress to the primary",
    (m) => void delete policy(m, "postgres-backup").spec.egress,
    /CronJob\/postgres-backup: NetworkPolicies block PRIMARY_HOST: postgres-backup cannot reach postgres-primary on 5432/,
  ],
  [
    "a Postgres URL with credentials",
    (m) => {
      const config = m.find((c) => c.kind === "ConfigMap" && c.metadata.name.startsWith("platform-config"))!;
      config.data!.POSTGRES_URL = "postgres://projector@postgres-primary.platform.svc:5432/platform";
    },
    /Deployment\/projector-intents: POSTGRES_URL carries credentials/,
  ],
  [
    "a Postgres URL naming a Service that does not exist",
    (m) => {
      const config = m.find((c) => c.kind === "ConfigMap" && c.metadata.name.startsWith("platform-config"))!;
      config.data!.POSTGRES_READ_URL = "postgres://postgres-ro.platform.svc:5432/platform";
    },
    /data-query-accounts: POSTGRES_URL names Service postgres-ro in namespace platform, which does not exist/,
  ],
  [
    "a StatefulSet without claim templates",
    (m) => {
      const set = find(m, "StatefulSet", "postgres-replica");
      delete set.spec.volumeClaimTemplates;
      set.spec.template.spec.volumes.push({ name: "data", emptyDir: {} });
    },
    /\[statefulsets\] StatefulSet\/postgres-replica: has no volumeClaimTemplates/,
  ],
  [
    "a StatefulSet that deletes its volumes",
    (m) =>
      void (find(m, "StatefulSet", "postgres-primary").spec.persistentVolumeClaimRetentionPolicy.whenDeleted =
        "Delete"),
    /StatefulSet\/postgres-primary: must retain its volumes/,
  ],
  [
    "a StatefulSet without a PDB",
    (m) => void m.splice(m.indexOf(find(m, "PodDisruptionBudget", "postgres")), 1),
    /\[disruption\] StatefulSet\/postgres-primary: must be selected by exactly one PodDisruptionBudget \(found 0\)/,
  ],
  [
    "a backup CronJob that may overlap itself",
    (m) => void (find(m, "CronJob", "postgres-backup").spec.concurrencyPolicy = "Allow"),
    /\[batch\] CronJob\/postgres-backup: must set concurrencyPolicy: Forbid/,
  ],
  [
    "a migration Job without a deadline",
    (m) => void delete find(m, "Job", "history-migrate").spec.activeDeadlineSeconds,
    /\[batch\] Job\/history-migrate: must set activeDeadlineSeconds/,
  ],
  [
    "the replica's init container with a writable root filesystem",
    (m) =>
      void (podOf(find(m, "StatefulSet", "postgres-replica")).initContainers[0].securityContext.readOnlyRootFilesystem =
        false),
    /StatefulSet\/postgres-replica container clone-primary: must set readOnlyRootFilesystem: true/,
  ],
  [
    "the backups running as root",
    (m) => {
      const pod = podOf(find(m, "CronJob", "postgres-backup"));
      pod.securityContext.runAsUser = 0;
      delete pod.containers[0].securityContext.runAsUser;
    },
    /CronJob\/postgres-backup container backup: must not run as uid 0/,
  ],
  [
    "a server without a liveness probe",
    (m) => void delete podOf(find(m, "StatefulSet", "postgres-primary")).containers[0].livenessProbe,
    /StatefulSet\/postgres-primary container postgres: has no livenessProbe/,
  ],
  [
    "an undocumented Secret in the migration Job",
    (m) => {
      const env = podOf(find(m, "Job", "history-migrate")).containers[0].env;
      env.find((variable: any) => variable.name === "POSTGRES_PASSWORD").valueFrom.secretKeyRef.name = "postgres-admin";
    },
    /Job\/history-migrate container migrate: env POSTGRES_PASSWORD refers to an undocumented Secret postgres-admin/,
  ],
  [
    "the backups on a claim that does not exist",
    (m) => void m.splice(m.indexOf(find(m, "PersistentVolumeClaim", "postgres-backups")), 1),
    /CronJob\/postgres-backup: volume backups refers to a missing PersistentVolumeClaim postgres-backups/,
  ],
  [
    "a governing Service that is not headless",
    (m) => void delete find(m, "Service", "postgres").spec.clusterIP,
    /StatefulSet\/postgres-primary: serviceName postgres must be a headless Service selecting its pods/,
  ],
];

describe("the PostgreSQL checks bite", () => {
  test.each(CASES)("%s is reported", (_name, mutate, expected) => {
    const manifests = structuredClone(objects("dev"));
    expect(formatProblems(checkRules(manifests, PROJECT_RULES))).toBe("");
    mutate(manifests);
    expect(formatProblems(checkRules(manifests, PROJECT_RULES))).toMatch(expected);
  });

  test("the deployables table and the policies agree: exactly the projectors and data-query use PostgreSQL", () => {
    expect(
      DEPLOYABLES.filter((deployable) => deployable.uses.postgres)
        .map((deployable) => `${deployable.name}:${deployable.uses.postgres}`)
        .sort(),
    ).toEqual([...DATA_QUERIES.map((name) => `${name}:data_query`), ...PROJECTORS.map((name) => `${name}:projector`)]);
  });
});
