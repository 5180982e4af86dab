import type { Manifest } from "../manifests.js";
import { type Container, configMapData, type PodSpec } from "./ruleContext.js";

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
