import type { AnyRoute, HttpMethod } from "@platform/http";

export interface RouteMatch {
  route: AnyRoute;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
}

type Segment = { literal: string } | { param: string };

interface CompiledRoute {
  route: AnyRoute;
  segments: Segment[];
}

/**
 * Finds the route of a path among routes of one method, the way express 5 mounts them: templates
 * like `/data/v1/subnets/:netuid/validators/latest`, literal segments compared without regard to
 * case, one trailing slash allowed, a parameter one whole non-empty segment, percent-decoded; the
 * first route (in the order given) that matches wins. A path it cannot decode matches nothing, so
 * express answers it as before.
 */
export function createRouteTable(routes: AnyRoute[], method: HttpMethod): (path: string) => RouteMatch | undefined {
  const bySegmentCount = new Map<number, CompiledRoute[]>();
  for (const route of routes) {
    if (route.method !== method) continue;
    const segments = route.path
      .split("/")
      .slice(1)
      .map((part): Segment => (part.startsWith(":") ? { param: part.slice(1) } : { literal: part.toLowerCase() }));
    const list = bySegmentCount.get(segments.length) ?? [];
    list.push({ route, segments });
    bySegmentCount.set(segments.length, list);
  }

  return (path) => {
    if (!path.startsWith("/")) return undefined;
    const parts = path.split("/").slice(1);
    if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
    const candidates = bySegmentCount.get(parts.length);
    if (!candidates) return undefined;
    for (const { route, segments } of candidates) {
      const params = matchSegments(segments, parts);
      if (params === null) continue;
      return params === undefined ? undefined : { route, params };
    }
    return undefined;
  };
}

/** The parameters when the parts fit the segments; null when they do not; undefined when a parameter does not decode. */
function matchSegments(segments: Segment[], parts: string[]): Record<string, string> | null | undefined {
  let params: Record<string, string> | undefined;
  for (let index = 0; index < segments.length; index += 1) {
    const segment = segments[index]!;
    const part = parts[index]!;
    if ("literal" in segment) {
      if (part !== segment.literal && part.toLowerCase() !== segment.literal) return null;
      continue;
    }
    if (part === "") return null;
    params ??= {};
    try {
      params[segment.param] = part.includes("%") ? decodeURIComponent(part) : part;
    } catch {
      return undefined;
    }
  }
  return params ?? {};
}
