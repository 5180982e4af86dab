import type {
  V1Container,
  V1EnvVar,
  V1Job,
  V1PodSecurityContext,
  V1PodSpec,
  V1SecurityContext,
  V1Volume,
} from "@kubernetes/client-node";
import { imageOf, RUN_AS_UID, SERVICE_ACCOUNT } from "./deployables.js";
import type { Manifest } from "./manifests.js";
import { NAME_LABEL } from "./postgresEgress.js";

export const podSecurity = (uid: number): V1PodSecurityContext => ({
  runAsNonRoot: true,
  runAsUser: uid,
  runAsGroup: uid,
  fsGroup: uid,
  // Large data volumes: change ownership only when the volume's root is not the group's yet.
  fsGroupChangePolicy: "OnRootMismatch",
  seccompProfile: { type: "RuntimeDefault" },
});

export const containerSecurity = (uid: number): V1SecurityContext => ({
  runAsNonRoot: true,
  runAsUser: uid,
  runAsGroup: uid,
  readOnlyRootFilesystem: true,
  allowPrivilegeEscalation: false,
  privileged: false,
  capabilities: { drop: ["ALL"] },
  seccompProfile: { type: "RuntimeDefault" },
});

/** The pod of a batch workload (never restarted in place: the Job retries with a new pod). */
export function batchPod(uid: number, container: V1Container, volumes: V1Volume[]): V1PodSpec {
  return {
    serviceAccountName: SERVICE_ACCOUNT,
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    restartPolicy: "Never",
    terminationGracePeriodSeconds: 30,
    securityContext: podSecurity(uid),
    containers: [container],
    volumes,
  };
}

/** A release step: a command of the projector image, with its environment. */
export interface StepJobSpec {
  /** The Job's name, and its name and component labels. */
  name: string;
  container: string;
  command: string[];
  env: V1EnvVar[];
}

/**
 * A release step's Job (the history migrations, the Kafka topics): one run of a command of the
 * projector image, as the platform's user with a read-only root and a small in-memory /tmp. A Job's
 * pod template cannot change: delete the finished Job before applying a new release (it is also
 * removed an hour after it finishes), and the apply runs the new release's step.
 */
export function stepJob(spec: StepJobSpec): V1Job & Manifest {
  const labels = { [NAME_LABEL]: spec.name, "app.kubernetes.io/component": spec.name };
  const container: V1Container = {
    name: spec.container,
    image: `${imageOf("projector")}:0.1.0`,
    imagePullPolicy: "IfNotPresent",
    command: spec.command,
    env: spec.env,
    resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
    securityContext: containerSecurity(RUN_AS_UID),
    volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
  };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: spec.name, labels },
    spec: {
      // Retries while what the step needs starts (the PostgreSQL primary, its first initialisation
      // included; Kafka, or its ACLs not there yet).
      backoffLimit: 6,
      activeDeadlineSeconds: 1800,
      ttlSecondsAfterFinished: 3600,
      template: {
        metadata: { labels },
        spec: batchPod(RUN_AS_UID, container, [{ name: "tmp", emptyDir: { medium: "Memory", sizeLimit: "16Mi" } }]),
      },
    },
  };
}
