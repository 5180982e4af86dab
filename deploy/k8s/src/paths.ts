import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** deploy/k8s, whether this runs from src/ (tests, tsx) or dist/. */
export const K8S_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const REPO_ROOT = join(K8S_DIR, "..", "..");
export const BASE_DIR = join(K8S_DIR, "base");
export const OVERLAYS_DIR = join(K8S_DIR, "overlays");
/** Generated Prometheus rule files, their promtool tests and the Grafana dashboards. */
export const OBSERVABILITY_DIR = join(K8S_DIR, "observability");
/** Generated manifests an operator applies by hand (the PostgreSQL restore Job). */
export const OPERATIONS_DIR = join(K8S_DIR, "operations");
export const OVERLAYS = ["dev", "prod"] as const;
export type OverlayName = (typeof OVERLAYS)[number];
