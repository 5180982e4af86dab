import { collectDefaultMetrics, Registry } from "prom-client";

/** A registry per process with Node's default metrics, labelled with the service name. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
