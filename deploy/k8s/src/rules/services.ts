import { selectorMatches } from "../netpol.js";
import { id, nsOf, type RuleContext } from "./ruleContext.js";

// ---- Services: selectors and ports meet real pods; gRPC Services are headless.
export function checkServices(context: RuleContext): void {
  const { options, report, services } = context;
  // Pods behind Services: the Deployments' and the StatefulSets'.
  const deployments = context.workloads.filter(
    (workload) => workload.kind === "Deployment" || workload.kind === "StatefulSet",
  );
  for (const service of services) {
    const spec = (service.spec ?? {}) as {
      selector?: Record<string, string>;
      clusterIP?: string;
      ports?: Array<{ name?: string; port: number; targetPort?: number | string }>;
    };
    const selected = deployments.filter(
      (deployment) =>
        deployment.namespace === nsOf(service, options.namespace) &&
        spec.selector &&
        Object.keys(spec.selector).length > 0 &&
        selectorMatches({ matchLabels: spec.selector }, deployment.podLabels),
    );
    if (selected.length === 0) {
      report("services", id(service), "selector matches no Deployment's or StatefulSet's pod labels");
      continue;
    }
    for (const port of spec.ports ?? []) {
      const target = port.targetPort ?? port.port;
      const resolved = selected.every((deployment) =>
        deployment.containers.some((container) =>
          (container.ports ?? []).some((containerPort) =>
            typeof target === "number" ? containerPort.containerPort === target : containerPort.name === target,
          ),
        ),
      );
      if (!resolved)
        report(
          "services",
          id(service),
          `port ${port.name ?? port.port} targets ${target}, which the selected pods do not expose`,
        );
      if (port.name === "grpc" && spec.clusterIP !== "None")
        report(
          "services",
          id(service),
          "serves gRPC and must be headless (clusterIP: None) so clients balance over every pod",
        );
      if (spec.clusterIP === "None") {
        const number = selected[0]!.endpoint.namedPorts[String(target)] ?? target;
        if (number !== port.port)
          report(
            "services",
            id(service),
            `is headless: port ${port.port} must equal the container port (${number}), clients dial pods directly`,
          );
      }
    }
  }
}
