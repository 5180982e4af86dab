import type {
  V1Container,
  V1CronJob,
  V1EnvVar,
  V1Job,
  V1PersistentVolumeClaim,
  V1PodDisruptionBudget,
  V1PodSpec,
  V1Probe,
  V1Service,
  V1StatefulSet,
  V1Volume,
  V1VolumeMount,
} from "@kubernetes/client-node";
import { historyGrantStatements } from "@platform/history";
import { batchPod, containerSecurity, podSecurity, stepJob } from "./batchJob.js";
import type { Deployable, PostgresClientRole } from "./deployable.js";
import { CONFIG_MAP, DEPLOYABLES, NAMESPACE, SERVICE_ACCOUNT } from "./deployables.js";
import type { Manifest } from "./manifests.js";
import {
  NAME_LABEL,
  POSTGRES_PORT,
  POSTGRES_PRIMARY,
  POSTGRES_REPLICA,
  podsNamed,
  postgresEgressOf,
  toPostgres,
} from "./postgresEgress.js";
import { POSTGRES_ROLES, POSTGRES_SUPERUSER_SECRET, type PostgresRole } from "./postgresRoles.js";

/**
 * PostgreSQL 15, the history store (issue 41), as the manifests run it: a primary StatefulSet, a
 * streaming replica StatefulSet cloned from it with pg_basebackup, a PVC per pod, a backup CronJob
 * (pg_basebackup, tar, gzip, WAL streamed into the backup) into a PVC of its own, the Job that runs
 * the history schema's migrations, and the roles' Secrets, grants and NetworkPolicies.
 *
 * This is what the tests can validate (pinned Kubernetes schema, project rules, and the bootstrap
 * SQL and scripts on a real PostgreSQL 15). For production, CloudNativePG is the option the README
 * recommends: automated failover, WAL archiving and point-in-time recovery; its CRDs cannot be
 * validated here.
 */

/**
 * The official image, pinned by tag. Operators mirror it into their own registry and pin it by
 * digest there (kustomize `images:`, `newName` + `digest`), as they do the platform's images.
 */
export const POSTGRES_IMAGE = "postgres:15-bookworm";
/** The official image's `postgres` user and group (uid/gid 999). */
export const POSTGRES_UID = 999;
export const POSTGRES_DATABASE = "platform";
export const HISTORY_SCHEMA = "history";

/** Headless Service governing both StatefulSets (stable pod names: postgres-primary-0.postgres…). */
export const POSTGRES_PODS_SERVICE = "postgres";
export const POSTGRES_BACKUP = "postgres-backup";
export const POSTGRES_BACKUPS_CLAIM = "postgres-backups";
export const HISTORY_MIGRATE = "history-migrate";
export const POSTGRES_COMPONENT = "postgres";

export const POSTGRES_CONFIG_MAP = "postgres-config";
export const POSTGRES_INITDB_CONFIG_MAP = "postgres-initdb";
export const POSTGRES_SCRIPTS_CONFIG_MAP = "postgres-scripts";

export const PGDATA_MOUNT = "/var/lib/postgresql/data";
/** A subdirectory of the volume: a fresh volume's root may hold lost+found, which initdb refuses. */
export const PGDATA = `${PGDATA_MOUNT}/pgdata`;
export const POSTGRES_CONFIG_DIR = "/etc/postgresql";
export const POSTGRES_SCRIPTS_DIR = "/etc/postgresql-scripts";
export const BACKUP_MOUNT = "/backups";
/** Where each Secret is mounted (read-only, 0440, group postgres), as the services' own Secrets are. */
export const SECRETS_DIR = "/var/run/secrets/platform";
/** Complete base backups the CronJob keeps (older ones are removed after a new one completes). */
export const BACKUP_KEEP = 7;

/** `<service>.<namespace>.svc`: the address a client of the Service dials. */
export const postgresHost = (service: string) => `${service}.${NAMESPACE}.svc`;
/** The URLs the services read (POSTGRES_URL): no credentials, those come from each one's Secret. */
export const POSTGRES_URLS: Record<string, string> = {
  /** The primary: the projectors write, the migrations run there. */
  POSTGRES_URL: `postgres://${postgresHost(POSTGRES_PRIMARY)}:${POSTGRES_PORT}/${POSTGRES_DATABASE}`,
  /**
   * data-query's history reads: the primary by default. An answer's as_of comes from Redis, which
   * the projector commits after PostgreSQL, so the primary always holds what as_of names; a replica
   * may lag behind it and leave the newest rows out of a page. Pointing this at postgres-replica
   * (which accepts data-query too) moves the reads off the primary where that lag is acceptable.
   */
  POSTGRES_READ_URL: `postgres://${postgresHost(POSTGRES_PRIMARY)}:${POSTGRES_PORT}/${POSTGRES_DATABASE}`,
} as const;

const secretFile = (secret: string) => `${SECRETS_DIR}/${secret}/password`;

/**
 * Who may connect to each server on 5432. The NetworkPolicies are generated from these lists and
 * the project rules hold the rendered overlays to them (nothing else reaches the port).
 */
export function postgresClients(all: Deployable[] = DEPLOYABLES): { primary: string[]; replica: string[] } {
  const using = (roles: PostgresClientRole[]) =>
    all.filter((deployable) => deployable.uses.postgres && roles.includes(deployable.uses.postgres)).map((d) => d.name);
  return {
    primary: [...using(["projector", "data_query"]), HISTORY_MIGRATE, POSTGRES_REPLICA, POSTGRES_BACKUP].sort(),
    replica: using(["data_query"]).sort(),
  };
}

// ---- The files: server configuration, client authentication, bootstrap SQL, scripts.

const GENERATED = "Generated from deploy/k8s/src/postgres.ts by `pnpm --filter @platform/k8s gen`; edit it there.";

/** postgresql.conf of both servers (initdb's own file in the data directory is not read). */
export function postgresqlConf(): string {
  return `# ${GENERATED}
# The server's configuration, mounted from the ConfigMap ${POSTGRES_CONFIG_MAP} at ${POSTGRES_CONFIG_DIR}
# (config_file on the command line). Memory settings fit the base's 1 Gi limit; overlays raise them
# with -c arguments (which win over this file).
listen_addresses = '*'
port = ${POSTGRES_PORT}
unix_socket_directories = '/var/run/postgresql'
hba_file = '${POSTGRES_CONFIG_DIR}/pg_hba.conf'
max_connections = 200
password_encryption = 'scram-sha-256'

shared_buffers = '256MB'
effective_cache_size = '768MB'
maintenance_work_mem = '64MB'
work_mem = '4MB'
dynamic_shared_memory_type = 'posix'

# Streaming replication (the replica) and base backups (pg_basebackup) both need WAL senders.
wal_level = 'replica'
max_wal_senders = 10
max_replication_slots = 10
# WAL kept for a replica that falls behind; past it, the replica must be cloned again (README).
wal_keep_size = '1GB'
wal_compression = on
max_wal_size = '2GB'
min_wal_size = '256MB'
checkpoint_timeout = '15min'
hot_standby = on
hot_standby_feedback = on
max_standby_streaming_delay = '30s'

# Logs to stderr (kubectl logs): no collector, the root filesystem is read-only.
logging_collector = off
log_destination = 'stderr'
log_line_prefix = '%m [%p] %q%u@%d '
log_checkpoints = on
log_lock_waits = on
log_min_duration_statement = '2s'
log_timezone = 'UTC'
timezone = 'UTC'
datestyle = 'iso, mdy'
lc_messages = 'C'
lc_monetary = 'C'
lc_numeric = 'C'
lc_time = 'C'
default_text_search_config = 'pg_catalog.english'
`;
}

/** replica.conf: the primary's settings plus where the standby streams from. */
export function replicaConf(): string {
  return `# ${GENERATED}
# The replica's configuration: the primary's, plus the connection it streams WAL over. The data
# directory carries standby.signal (written when replica-init.sh clones the primary), and the
# password comes from PGPASSWORD (the Secret ${POSTGRES_ROLES.replicator.secret}), never from this file.
include 'postgresql.conf'
primary_conninfo = 'host=${postgresHost(POSTGRES_PRIMARY)} port=${POSTGRES_PORT} user=replicator application_name=${POSTGRES_REPLICA}'
`;
}

/** pg_hba.conf: the platform's roles over TCP with SCRAM, replication for replicator, the superuser only on the pod's socket. */
export function pgHbaConf(): string {
  return `# ${GENERATED}
# Who may connect, and how; the first matching line decides, and no line means refused.
# NetworkPolicies decide which pods reach port ${POSTGRES_PORT} at all. With TLS (prod: README), turn
# \`host\` into \`hostssl\` so that no connection goes unencrypted.
# TYPE  DATABASE     USER                                ADDRESS     METHOD
# The image's initialisation and operators (kubectl exec … psql), as the OS user postgres.
local   all          postgres                                        peer
host    ${POSTGRES_DATABASE}     history_owner,projector,data_query  0.0.0.0/0   scram-sha-256
host    ${POSTGRES_DATABASE}     history_owner,projector,data_query  ::/0        scram-sha-256
host    replication  replicator                          0.0.0.0/0   scram-sha-256
host    replication  replicator                          ::/0        scram-sha-256
# Everything else, the superuser over the network included, matches no line and is refused.
`;
}

/**
 * The bootstrap SQL: roles and grants. The image runs it once, when the primary initialises an
 * empty data directory (/docker-entrypoint-initdb.d), as the superuser on the database
 * ${POSTGRES_DATABASE} (POSTGRES_DB). psql reads each password from its mounted Secret file (a
 * backquoted `cat`): no password is written here, in a ConfigMap, or on a command line.
 * `secrets_dir` (psql -v) lets the tests point it at other files.
 */
export function rolesSql(): string {
  const roles = Object.entries(POSTGRES_ROLES) as Array<[PostgresRole, { secret: string }]>;
  const reads = roles
    .map(([role, { secret }]) => `\\set ${role}_password \`cat :secrets_dir/${secret}/password\``)
    .join("\n");
  const lengths = roles.map(([role]) => `(:'${role}_password')`).join(", ");
  return `-- ${GENERATED}
-- The history store's roles and grants (deploy/k8s/README.md, "PostgreSQL"). Runs once, when the
-- primary initialises an empty data directory, as the superuser on the database ${POSTGRES_DATABASE}.
\\set ON_ERROR_STOP on
\\if :{?secrets_dir}
\\else
\\set secrets_dir ${SECRETS_DIR}
\\endif
-- Each password from its Secret's file (key \`password\`), never from this file or an argument.
${reads}
SELECT bool_or(length(password) < 16) AS weak_password FROM (VALUES ${lengths}) AS passwords (password) \\gset
\\if :weak_password
\\warn 'a role password is missing or shorter than 16 characters: create the Secrets first (README)'
SELECT 1 / 0 AS refused_weak_password;
\\endif

CREATE ROLE history_owner LOGIN PASSWORD :'history_owner_password';
CREATE ROLE projector LOGIN PASSWORD :'projector_password';
CREATE ROLE data_query LOGIN PASSWORD :'data_query_password';
CREATE ROLE replicator LOGIN REPLICATION PASSWORD :'replicator_password';
\\unset history_owner_password
\\unset projector_password
\\unset data_query_password
\\unset replicator_password

-- Only the platform's roles connect to its database, and nobody creates objects in public.
REVOKE ALL ON DATABASE ${POSTGRES_DATABASE} FROM PUBLIC;
GRANT CONNECT ON DATABASE ${POSTGRES_DATABASE} TO history_owner, projector, data_query;
REVOKE ALL ON SCHEMA public FROM PUBLIC;

-- history_owner owns the schema: its migrations create, alter, partition and drop the tables.
CREATE SCHEMA ${HISTORY_SCHEMA} AUTHORIZATION history_owner;
-- Whatever history_owner creates there (tables, partitions, sequences, functions) is granted as it
-- is created: libs/history HISTORY_PRIVILEGES, the same statements the local stack runs.
${historyGrantStatements()
  .map((statement) => `${statement};`)
  .join("\n")}

ALTER ROLE history_owner SET search_path = ${HISTORY_SCHEMA};
ALTER ROLE projector SET search_path = ${HISTORY_SCHEMA};
ALTER ROLE data_query SET search_path = ${HISTORY_SCHEMA};
ALTER ROLE data_query SET default_transaction_read_only = on;
`;
}

/** Init container of the replica: clone the primary into an empty data directory, as a standby. */
export function replicaInitScript(): string {
  return `#!/bin/bash
# ${GENERATED}
# Init container of ${POSTGRES_REPLICA}: clones the primary into an empty data directory with
# pg_basebackup as replicator (PGPASSWORD from the Secret ${POSTGRES_ROLES.replicator.secret}) and marks it a
# standby. A data directory that holds a cluster already is left as it is: the standby resumes.
set -euo pipefail
: "\${PGDATA:?}" "\${PRIMARY_HOST:?}" "\${PRIMARY_PORT:?}"
if [ -s "$PGDATA/PG_VERSION" ]; then
  echo "replica-init: $PGDATA holds a cluster already; it starts as it is"
  exit 0
fi
if [ -d "$PGDATA" ]; then
  # An empty directory is fine; anything else is not ours to delete.
  rmdir "$PGDATA" || { echo "replica-init: $PGDATA is not empty and holds no cluster; refusing" >&2; exit 1; }
fi
partial="$PGDATA.partial"
rm -rf "$partial"
echo "replica-init: cloning $PRIMARY_HOST:$PRIMARY_PORT into $PGDATA"
pg_basebackup --host="$PRIMARY_HOST" --port="$PRIMARY_PORT" --username=replicator --no-password \\
  --pgdata="$partial" --wal-method=stream --checkpoint=fast --verbose
touch "$partial/standby.signal"
mv "$partial" "$PGDATA"
echo "replica-init: done"
`;
}

/** The backup CronJob's script: one base backup (tar, gzip, WAL streamed), then keep the newest BACKUP_KEEP. */
export function backupScript(): string {
  return `#!/bin/bash
# ${GENERATED}
# ${POSTGRES_BACKUP}: a base backup of the primary with pg_basebackup as replicator (PGPASSWORD from the
# Secret ${POSTGRES_ROLES.replicator.secret}), in tar format, gzip-compressed, with the WAL of its duration
# streamed into it (-X stream), so each backup restores on its own (README, "Restore"). Written to
# <dir>.partial and renamed when complete; then only the newest BACKUP_KEEP complete ones are kept.
set -euo pipefail
: "\${BACKUP_DIR:?}" "\${BACKUP_KEEP:?}" "\${PRIMARY_HOST:?}" "\${PRIMARY_PORT:?}"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
target="$BACKUP_DIR/base-$stamp"
# What a failed run left half-written is never a backup.
find "$BACKUP_DIR" -mindepth 1 -maxdepth 1 -name '*.partial' -exec rm -rf {} +
echo "backup: $PRIMARY_HOST:$PRIMARY_PORT into $target"
pg_basebackup --host="$PRIMARY_HOST" --port="$PRIMARY_PORT" --username=replicator --no-password \\
  --pgdata="$target.partial" --format=tar --gzip --wal-method=stream --checkpoint=fast \\
  --label="${POSTGRES_BACKUP} $stamp" --verbose
for file in base.tar.gz pg_wal.tar.gz backup_manifest; do
  [ -s "$target.partial/$file" ] || { echo "backup: $file is missing" >&2; exit 1; }
done
gzip --test "$target.partial"/*.tar.gz
mv "$target.partial" "$target"
echo "backup: $target complete ($(du -sh "$target" | cut -f1))"
mapfile -t complete < <(find "$BACKUP_DIR" -mindepth 1 -maxdepth 1 -type d -name 'base-*Z' | sort)
excess=$((\${#complete[@]} - BACKUP_KEEP))
for ((i = 0; i < excess; i++)); do
  echo "backup: removing \${complete[i]} (keeping the newest $BACKUP_KEEP)"
  rm -rf "\${complete[i]}"
done
`;
}

/**
 * The restore: the newest complete backup (or BACKUP=base-<time>) unpacked into the primary's data
 * directory; the old directory is moved aside, not deleted. At its start the server replays the
 * backup's WAL to a consistent state (README, "Restore").
 */
export function restoreScript(): string {
  return `#!/bin/bash
# ${GENERATED}
set -euo pipefail
: "\${BACKUP_DIR:?}" "\${PGDATA:?}"
name="\${BACKUP:-latest}"
if [ "$name" = latest ]; then
  backup="$(find "$BACKUP_DIR" -mindepth 1 -maxdepth 1 -type d -name 'base-*Z' | sort | tail -n 1)"
else
  backup="$BACKUP_DIR/$name"
fi
if [ -z "$backup" ] || [ ! -s "$backup/base.tar.gz" ] || [ ! -s "$backup/pg_wal.tar.gz" ]; then
  echo "restore: no complete backup named '$name' in $BACKUP_DIR" >&2
  exit 1
fi
if [ -e "$PGDATA" ]; then
  aside="$PGDATA.before-restore-$(date -u +%Y%m%dT%H%M%SZ)"
  echo "restore: moving the current data directory aside to $aside (delete it once the restore is checked)"
  mv "$PGDATA" "$aside"
fi
rm -rf "$PGDATA.partial"
mkdir -m 0700 "$PGDATA.partial"
tar -xzf "$backup/base.tar.gz" -C "$PGDATA.partial"
mkdir -p -m 0700 "$PGDATA.partial/pg_wal"
tar -xzf "$backup/pg_wal.tar.gz" -C "$PGDATA.partial/pg_wal"
rm -f "$PGDATA.partial/standby.signal" "$PGDATA.partial/recovery.signal"
mv "$PGDATA.partial" "$PGDATA"
echo "restore: $backup is in $PGDATA; start the primary (it replays the backup's WAL at start)"
`;
}

/** Files of the generated ConfigMaps, by ConfigMap and key; generate.ts writes them under base/postgres/. */
export function postgresFiles(): Record<string, Record<string, string>> {
  return {
    [POSTGRES_CONFIG_MAP]: {
      "postgresql.conf": postgresqlConf(),
      "replica.conf": replicaConf(),
      "pg_hba.conf": pgHbaConf(),
    },
    [POSTGRES_INITDB_CONFIG_MAP]: { "10-roles.sql": rolesSql() },
    [POSTGRES_SCRIPTS_CONFIG_MAP]: {
      "replica-init.sh": replicaInitScript(),
      "backup.sh": backupScript(),
      "restore.sh": restoreScript(),
    },
  };
}

// ---- The manifests.

const labelsOf = (name: string, component = POSTGRES_COMPONENT) => ({
  [NAME_LABEL]: name,
  "app.kubernetes.io/component": component,
});

/** What the read-only root filesystem leaves writable: the socket directory, /tmp, and shared memory. */
function scratchVolumes(): { volumes: V1Volume[]; mounts: V1VolumeMount[] } {
  return {
    volumes: [
      { name: "run", emptyDir: { medium: "Memory", sizeLimit: "16Mi" } },
      { name: "tmp", emptyDir: { sizeLimit: "256Mi" } },
      // Parallel queries' dynamic shared memory (POSIX, /dev/shm); the runtime's default is 64 MiB.
      { name: "shm", emptyDir: { medium: "Memory", sizeLimit: "256Mi" } },
    ],
    mounts: [
      { name: "run", mountPath: "/var/run/postgresql" },
      { name: "tmp", mountPath: "/tmp" },
      { name: "shm", mountPath: "/dev/shm" },
    ],
  };
}

const secretVolume = (secret: string): V1Volume => ({
  name: secret,
  secret: { secretName: secret, defaultMode: 0o440 },
});
const secretMount = (secret: string): V1VolumeMount => ({
  name: secret,
  mountPath: `${SECRETS_DIR}/${secret}`,
  readOnly: true,
});
const replicatorPassword: V1EnvVar = {
  name: "PGPASSWORD",
  valueFrom: { secretKeyRef: { name: POSTGRES_ROLES.replicator.secret, key: "password" } },
};
const primaryAddress: V1EnvVar[] = [
  { name: "PRIMARY_HOST", value: postgresHost(POSTGRES_PRIMARY) },
  { name: "PRIMARY_PORT", value: String(POSTGRES_PORT) },
];

/**
 * pg_isready over TCP, with no password: a server that answers, even to refuse the connection
 * (pg_hba.conf has no line for it), is up. It fails while the server starts, recovers, or initialises (the temporary server listens on no TCP port). */
export const PG_ISREADY_COMMAND = [
  "pg_isready",
  "--host=127.0.0.1",
  `--port=${POSTGRES_PORT}`,
  `--dbname=${POSTGRES_DATABASE}`,
  "--quiet",
];
function probes(): Pick<V1Container, "startupProbe" | "readinessProbe" | "livenessProbe"> {
  const isReady = { command: PG_ISREADY_COMMAND };
  // Crash recovery, or a replica replaying WAL after a restart, may take minutes: 15 before liveness applies.
  const startupProbe: V1Probe = { exec: isReady, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 90 };
  const readinessProbe: V1Probe = {
    exec: isReady,
    periodSeconds: 10,
    timeoutSeconds: 5,
    failureThreshold: 3,
    successThreshold: 1,
  };
  // Generous: a restart under load costs crash recovery, so only a server gone for a minute is restarted.
  const livenessProbe: V1Probe = { exec: isReady, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 6 };
  return { startupProbe, readinessProbe, livenessProbe };
}

/** Fast shutdown in preStop: SIGTERM alone is a smart shutdown, which waits for every pooled client to leave. */
export const POSTGRES_STOP_TIMEOUT_SECONDS = 60;
export const POSTGRES_GRACE_SECONDS = 90;

const postgresResources = {
  requests: { cpu: "500m", memory: "1Gi" },
  limits: { cpu: "2", memory: "1Gi" },
};

function statefulSet(name: string, primary: boolean, storage: string): V1StatefulSet & Manifest {
  const scratch = scratchVolumes();
  const configItems = ["postgresql.conf", "replica.conf", "pg_hba.conf"].map((key) => ({ key, path: key }));
  const volumes: V1Volume[] = [
    ...scratch.volumes,
    { name: "config", configMap: { name: POSTGRES_CONFIG_MAP, items: configItems, defaultMode: 0o444 } },
  ];
  const mounts: V1VolumeMount[] = [
    { name: "data", mountPath: PGDATA_MOUNT },
    ...scratch.mounts,
    { name: "config", mountPath: POSTGRES_CONFIG_DIR, readOnly: true },
  ];
  const env: V1EnvVar[] = [{ name: "PGDATA", value: PGDATA }];
  const primarySecrets = [POSTGRES_SUPERUSER_SECRET, ...Object.values(POSTGRES_ROLES).map((role) => role.secret)];
  let initContainers: V1Container[] | undefined;
  if (primary) {
    volumes.push({
      name: "initdb",
      configMap: { name: POSTGRES_INITDB_CONFIG_MAP, items: [{ key: "10-roles.sql", path: "10-roles.sql" }] },
    });
    mounts.push({ name: "initdb", mountPath: "/docker-entrypoint-initdb.d", readOnly: true });
    for (const secret of primarySecrets) {
      volumes.push(secretVolume(secret));
      mounts.push(secretMount(secret));
    }
    env.push(
      { name: "POSTGRES_DB", value: POSTGRES_DATABASE },
      { name: "POSTGRES_USER", value: "postgres" },
      // The image reads the superuser's password from this file when it initialises the cluster.
      { name: "POSTGRES_PASSWORD_FILE", value: secretFile(POSTGRES_SUPERUSER_SECRET) },
      { name: "POSTGRES_INITDB_ARGS", value: "--data-checksums --encoding=UTF8 --locale=C.UTF-8" },
    );
  } else {
    volumes.push({
      name: "scripts",
      configMap: {
        name: POSTGRES_SCRIPTS_CONFIG_MAP,
        items: [{ key: "replica-init.sh", path: "replica-init.sh" }],
        defaultMode: 0o555,
      },
    });
    // The walreceiver's libpq takes the password from the environment (primary_conninfo names none).
    env.push(replicatorPassword);
    initContainers = [
      {
        name: "clone-primary",
        image: POSTGRES_IMAGE,
        imagePullPolicy: "IfNotPresent",
        command: ["/bin/bash", `${POSTGRES_SCRIPTS_DIR}/replica-init.sh`],
        env: [{ name: "PGDATA", value: PGDATA }, ...primaryAddress, replicatorPassword],
        resources: { requests: { cpu: "250m", memory: "256Mi" }, limits: { cpu: "1", memory: "512Mi" } },
        securityContext: containerSecurity(POSTGRES_UID),
        volumeMounts: [
          { name: "data", mountPath: PGDATA_MOUNT },
          { name: "tmp", mountPath: "/tmp" },
          { name: "scripts", mountPath: POSTGRES_SCRIPTS_DIR, readOnly: true },
        ],
      },
    ];
  }
  const container: V1Container = {
    name: "postgres",
    image: POSTGRES_IMAGE,
    imagePullPolicy: "IfNotPresent",
    // The image's entrypoint prepends `postgres`; command-line -c settings win over the file.
    args: ["-c", `config_file=${POSTGRES_CONFIG_DIR}/${primary ? "postgresql.conf" : "replica.conf"}`],
    ports: [{ name: "postgres", containerPort: POSTGRES_PORT, protocol: "TCP" }],
    env,
    resources: postgresResources,
    ...probes(),
    lifecycle: {
      preStop: {
        exec: {
          command: [
            "pg_ctl",
            "stop",
            `--pgdata=${PGDATA}`,
            "--mode=fast",
            "--wait",
            "--timeout",
            String(POSTGRES_STOP_TIMEOUT_SECONDS),
          ],
        },
      },
    },
    securityContext: containerSecurity(POSTGRES_UID),
    volumeMounts: mounts,
  };
  const labels = labelsOf(name);
  const spec: V1PodSpec = {
    serviceAccountName: SERVICE_ACCOUNT,
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    terminationGracePeriodSeconds: POSTGRES_GRACE_SECONDS,
    securityContext: podSecurity(POSTGRES_UID),
    // Primary and replica on different nodes (and zones) when the cluster has them.
    affinity: {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            podAffinityTerm: {
              topologyKey: "kubernetes.io/hostname",
              labelSelector: { matchLabels: { "app.kubernetes.io/component": POSTGRES_COMPONENT } },
            },
          },
          {
            weight: 50,
            podAffinityTerm: {
              topologyKey: "topology.kubernetes.io/zone",
              labelSelector: { matchLabels: { "app.kubernetes.io/component": POSTGRES_COMPONENT } },
            },
          },
        ],
      },
    },
    ...(initContainers ? { initContainers } : {}),
    containers: [container],
    volumes,
  };
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, labels },
    spec: {
      serviceName: POSTGRES_PODS_SERVICE,
      // One primary, always: a second pod of this set would initialise a second, unrelated cluster.
      replicas: 1,
      podManagementPolicy: "OrderedReady",
      updateStrategy: { type: "RollingUpdate" },
      revisionHistoryLimit: 5,
      // The data outlives the StatefulSet: deleting or scaling it down never deletes a volume.
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
      selector: { matchLabels: { [NAME_LABEL]: name } },
      template: { metadata: { labels }, spec },
      volumeClaimTemplates: [
        {
          apiVersion: "v1",
          kind: "PersistentVolumeClaim",
          metadata: { name: "data", labels },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage } } },
        },
      ],
    },
  };
}

function service(name: string, selectorName: string | undefined, headless: boolean): V1Service & Manifest {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, labels: labelsOf(name) },
    spec: {
      ...(headless ? { clusterIP: "None" } : { type: "ClusterIP" }),
      selector: selectorName ? { [NAME_LABEL]: selectorName } : { "app.kubernetes.io/component": POSTGRES_COMPONENT },
      ports: [
        { name: "postgres", port: POSTGRES_PORT, targetPort: "postgres", protocol: "TCP", appProtocol: "postgresql" },
      ],
    },
  };
}

/** One budget over both servers: a drain takes at most one of them at a time (never both). */
function disruptionBudget(): V1PodDisruptionBudget & Manifest {
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: POSTGRES_PODS_SERVICE, labels: labelsOf(POSTGRES_PODS_SERVICE) },
    spec: {
      maxUnavailable: 1,
      selector: { matchLabels: { "app.kubernetes.io/component": POSTGRES_COMPONENT } },
      unhealthyPodEvictionPolicy: "AlwaysAllow",
    },
  };
}

function backupClaim(): V1PersistentVolumeClaim & Manifest {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: POSTGRES_BACKUPS_CLAIM, labels: labelsOf(POSTGRES_BACKUPS_CLAIM) },
    // BACKUP_KEEP compressed base backups with their WAL: size it at BACKUP_KEEP + 1 times one backup.
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "50Gi" } } },
  };
}

function backupCronJob(): V1CronJob & Manifest {
  const labels = labelsOf(POSTGRES_BACKUP);
  const container: V1Container = {
    name: "backup",
    image: POSTGRES_IMAGE,
    imagePullPolicy: "IfNotPresent",
    command: ["/bin/bash", `${POSTGRES_SCRIPTS_DIR}/backup.sh`],
    env: [
      ...primaryAddress,
      replicatorPassword,
      { name: "BACKUP_DIR", value: BACKUP_MOUNT },
      { name: "BACKUP_KEEP", value: String(BACKUP_KEEP) },
    ],
    resources: { requests: { cpu: "250m", memory: "256Mi" }, limits: { cpu: "1", memory: "512Mi" } },
    securityContext: containerSecurity(POSTGRES_UID),
    volumeMounts: [
      { name: "backups", mountPath: BACKUP_MOUNT },
      { name: "scripts", mountPath: POSTGRES_SCRIPTS_DIR, readOnly: true },
      { name: "tmp", mountPath: "/tmp" },
    ],
  };
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name: POSTGRES_BACKUP, labels },
    spec: {
      schedule: "17 3 * * *",
      timeZone: "Etc/UTC",
      // Never two at once on the one backups volume; a restore suspends it (README).
      concurrencyPolicy: "Forbid",
      startingDeadlineSeconds: 3600,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 3,
      jobTemplate: {
        metadata: { labels },
        spec: {
          backoffLimit: 2,
          activeDeadlineSeconds: 6 * 3600,
          template: {
            metadata: { labels },
            spec: batchPod(POSTGRES_UID, container, [
              { name: "backups", persistentVolumeClaim: { claimName: POSTGRES_BACKUPS_CLAIM } },
              {
                name: "scripts",
                configMap: {
                  name: POSTGRES_SCRIPTS_CONFIG_MAP,
                  items: [{ key: "backup.sh", path: "backup.sh" }],
                  defaultMode: 0o555,
                },
              },
              { name: "tmp", emptyDir: { sizeLimit: "64Mi" } },
            ]),
          },
        },
      },
    },
  };
}

/** The history schema's migrations: the projector image's `node dist/migrate.js`, as history_owner (batchJob.ts stepJob). */
function migrateJob(): V1Job & Manifest {
  return stepJob({
    name: HISTORY_MIGRATE,
    container: "migrate",
    command: ["node", "dist/migrate.js"],
    env: [
      { name: "LOG_LEVEL", valueFrom: { configMapKeyRef: { name: CONFIG_MAP, key: "LOG_LEVEL" } } },
      { name: "POSTGRES_URL", valueFrom: { configMapKeyRef: { name: CONFIG_MAP, key: "POSTGRES_URL" } } },
      { name: "POSTGRES_USERNAME", value: "history_owner" },
      {
        name: "POSTGRES_PASSWORD",
        valueFrom: { secretKeyRef: { name: POSTGRES_ROLES.history_owner.secret, key: "password" } },
      },
    ],
  });
}

/**
 * The restore Job (deploy/k8s/operations/postgres-restore.yaml, not part of the base): unpacks a
 * backup into the stopped primary's volume. Self-contained (its script inline), so it applies
 * without the base's hashed ConfigMap names.
 */
export function restoreJob(): V1Job & Manifest {
  const labels = labelsOf("postgres-restore");
  const container: V1Container = {
    name: "restore",
    image: POSTGRES_IMAGE,
    imagePullPolicy: "IfNotPresent",
    command: ["/bin/bash", "-c", restoreScript()],
    env: [
      { name: "BACKUP_DIR", value: BACKUP_MOUNT },
      { name: "PGDATA", value: PGDATA },
      // `latest`, or the folder of one backup (base-<UTC time>): kubectl set env, or edit before applying.
      { name: "BACKUP", value: "latest" },
    ],
    resources: { requests: { cpu: "250m", memory: "256Mi" }, limits: { cpu: "1", memory: "512Mi" } },
    securityContext: containerSecurity(POSTGRES_UID),
    volumeMounts: [
      { name: "backups", mountPath: BACKUP_MOUNT, readOnly: true },
      { name: "data", mountPath: PGDATA_MOUNT },
      { name: "tmp", mountPath: "/tmp" },
    ],
  };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "postgres-restore", namespace: NAMESPACE, labels },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: 6 * 3600,
      template: {
        metadata: { labels },
        spec: batchPod(POSTGRES_UID, container, [
          { name: "backups", persistentVolumeClaim: { claimName: POSTGRES_BACKUPS_CLAIM, readOnly: true } },
          // The primary's volume (volumeClaimTemplate `data`, pod postgres-primary-0).
          { name: "data", persistentVolumeClaim: { claimName: `data-${POSTGRES_PRIMARY}-0` } },
          { name: "tmp", emptyDir: { sizeLimit: "64Mi" } },
        ]),
      },
    },
  };
}

type Policy = Manifest & { spec: Record<string, unknown> };
const networkPolicy = (name: string, spec: Record<string, unknown>): Policy => ({
  apiVersion: "networking.k8s.io/v1",
  kind: "NetworkPolicy",
  metadata: { name, labels: labelsOf(name) },
  spec: { podSelector: { matchLabels: { [NAME_LABEL]: name } }, policyTypes: ["Ingress", "Egress"], ...spec },
});

function networkPolicies(all: Deployable[]): Policy[] {
  const clients = postgresClients(all);
  const from = (names: string[]) => [{ from: [podsNamed(names)], ports: [{ protocol: "TCP", port: "postgres" }] }];
  return [
    networkPolicy(POSTGRES_PRIMARY, { ingress: from(clients.primary) }),
    // The replica streams from the primary (and its init container clones it).
    networkPolicy(POSTGRES_REPLICA, { ingress: from(clients.replica), egress: [toPostgres([POSTGRES_PRIMARY])] }),
    networkPolicy(POSTGRES_BACKUP, { egress: [toPostgres([POSTGRES_PRIMARY])] }),
  ];
}

/** base/postgres.yaml: the servers, their Services, budget, backups and policies. */
export function postgresManifests(all: Deployable[] = DEPLOYABLES): Manifest[] {
  return [
    statefulSet(POSTGRES_PRIMARY, true, "20Gi"),
    statefulSet(POSTGRES_REPLICA, false, "20Gi"),
    service(POSTGRES_PODS_SERVICE, undefined, true),
    service(POSTGRES_PRIMARY, POSTGRES_PRIMARY, false),
    service(POSTGRES_REPLICA, POSTGRES_REPLICA, false),
    disruptionBudget(),
    backupClaim(),
    backupCronJob(),
    ...networkPolicies(all),
  ];
}

/** base/history-migrate.yaml: the migration Job and its policy (egress to the primary only). */
export function migrateManifests(): Manifest[] {
  return [
    migrateJob(),
    {
      ...networkPolicy(HISTORY_MIGRATE, { egress: [toPostgres([POSTGRES_PRIMARY])] }),
      metadata: { name: HISTORY_MIGRATE, labels: labelsOf(HISTORY_MIGRATE, HISTORY_MIGRATE) },
    },
  ];
}

export { POSTGRES_PORT, POSTGRES_PRIMARY, POSTGRES_REPLICA, postgresEgressOf };
