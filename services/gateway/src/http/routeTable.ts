import type { AnyRoute, HttpMethod } from "@platform/http";
import FindMyWay, { type HTTPMethod } from "find-my-way";

export interface RouteMatch {
  route: AnyRoute;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
}

/**
 * Finds the route of a path among routes of one method, as express 5 mounts them (find-my-way, the
 * radix-tree router of fastify): templates like `/data/v1/subnets/:netuid/validators/latest`,
 * literal segments compared without regard to case (parameters keep theirs), one trailing slash
 * allowed, a parameter one whole non-empty segment, percent-decoded. Where a literal and a parameter
 * both fit a segment the literal wins, which is also the order the routes are mounted in. A path it
 * cannot decode matches nothing, so express answers it as before. It replaced a hand-written table
 * (issue 16): on the gateway's 18 GET templates, 196 ns a lookup against 291 (2 million lookups of
 * six paths, both in one run on this 2-core machine).
 */
export function createRouteTable(routes: AnyRoute[], method: HttpMethod): (path: string) => RouteMatch | undefined {
  const router = FindMyWay({ caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: MAX_PARAMETER_LENGTH });
  const verb = method.toUpperCase() as HTTPMethod;
  for (const route of routes) {
    if (route.method === method) router.on(verb, route.path, () => undefined, route);
  }
  return (path) => {
    const found = router.find(verb, path);
    if (found === null) return undefined;
    const params = found.params as Record<string, string>;
    // express never gives a parameter an empty segment.
    for (const name in params) if (params[name] === "") return undefined;
    return { route: found.store as AnyRoute, params };
  };
}

// Longer than any value the routes take (an SS58 address is 48 characters, a hash 66), so that a
// longer one still reaches its route and is refused there for its shape, as express would.
const MAX_PARAMETER_LENGTH = 1_024;
