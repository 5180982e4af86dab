// The shape of one row of the deployables table (deployables.ts).

/** Folders under services/, and so image names. */
export type ServiceName = "gateway" | "auth" | "tc" | "intents-gateway" | "data-query" | "projector" | "chain-ingestor";

/**
 * gateway: the public HTTP entry. backend: serves gRPC to other deployables. worker: serves only
 * gRPC health and metrics (projector, chain-ingestor).
 */
export type Role = "gateway" | "backend" | "worker";

/** A literal, a key of the ConfigMap, or a key of a Secret (created in the cluster). */
export type EnvValue = string | { configMapKey: string } | { secretKey: { name: string; key: string } };

export interface Resources {
  requests: { cpu: string; memory: string };
  limits: { cpu: string; memory: string };
}

export interface Autoscaling {
  minReplicas: number;
  maxReplicas: number;
  /** Target average CPU utilisation, percent of requests. */
  cpuUtilization: number;
  /** Seconds the HPA waits before removing pods (Kafka consumers prefer few rebalances). */
  scaleDownStabilizationSeconds: number;
}

/** A Secret mounted as files; its values are created in the cluster, never in the repository. */
export interface SecretMount {
  secretName: string;
  mountPath: string;
  /** Variable that tells the process where the files are. */
  env: { name: string; value: string };
}

export interface Deployable {
  name: string;
  service: ServiceName;
  role: Role;
  /** What the pod talks to outside the namespace; drives env and egress NetworkPolicies. */
  uses: {
    redis?: boolean;
    kafka?: boolean;
    nats?: boolean;
    chainRpc?: boolean;
    chainsFile?: boolean;
    /** The history store (PostgreSQL), as this role: POSTGRES_* variables, egress to its servers. */
    postgres?: PostgresClientRole;
  };
  /** Deployables this one calls over gRPC (egress to them, ingress on their side). */
  calls: string[];
  /** Variables particular to this deployable, beside the ones derived from its role and `uses`. */
  env: Record<string, EnvValue>;
  resources: Resources;
  /** `singleton`: exactly one replica, replaced with Recreate, no HPA (fenced by its Kafka transactional ids). */
  scaling: Autoscaling | "singleton";
  secrets?: SecretMount[];
}

/** The PostgreSQL roles a deployable may connect as (postgresRoles.ts gives each its Secret and grants). */
export type PostgresClientRole = "projector" | "data_query";
