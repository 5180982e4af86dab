import { type AppError, invalidArgument, type ProblemExtras } from "@platform/errors";
import type { RouteTable } from "./routeTable.js";

/**
 * 400 UNSUPPORTED_ROUTE, for a quote or a preflight. Besides the routes configured now, it says
 * where integrators find them with their tokens and limits: the environment's deployment data,
 * published outside the API (deploy/config/<env>/deployment.v1.json, the client's `deployments`),
 * at the URL the operator publishes it under (DEPLOYMENT_DATA_URL) when one is configured.
 */
export function unsupportedRoute(routes: RouteTable, detail: string, extras: ProblemExtras = {}): AppError {
  const { environment, url } = routes.deploymentData;
  const where =
    url === undefined ? `the deployment data of environment ${environment}` : `its deployment data at ${url}`;
  return invalidArgument("UNSUPPORTED_ROUTE", `${detail}; the routes this service quotes are listed in ${where}`, {
    ...extras,
    supportedRoutes: routes.routes.map((route) => ({
      originChainId: route.originChainId,
      destinationChainId: route.destinationChainId,
      inputToken: route.inputToken,
      outputToken: route.outputToken,
    })),
    deploymentData: { environment, ...(url === undefined ? {} : { href: url }) },
  });
}
