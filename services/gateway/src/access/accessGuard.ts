import { status } from "@grpc/grpc-js";
import { REBUILDING_RETRY_AFTER_SECONDS } from "@platform/errors";
import type { RequestContext } from "@platform/http";
import { Counter, type Registry } from "prom-client";
import { HttpProblem } from "../HttpProblem.js";
import type { AdmitVerdict, RateLimiter, Tier } from "./rateLimiter.js";
import type { TokenVerifier } from "./verifyAccessToken.js";

export interface GuardedRoute {
  /** The scope the route needs. */
  scope: string;
  /** Units of the rate budget one call spends. */
  cost: number;
}

export interface Admission {
  keyId: string;
  /** What the token says of its key, for a long-lived answer that checks the key again later (event streams). */
  credential?: { secretVersion: number; tier: string; expiresAt: number };
  /** RateLimit-Policy and RateLimit, sent on every protected response. */
  headers: Record<string, string>;
}

const REALM = 'Bearer realm="api"';

/**
 * What a 403 (missing scope) spends, whatever the route would: one unit, the cheapest route's
 * cost. Free, a key could probe which scopes and routes exist as fast as it can send, every probe
 * a token check and a Redis round trip; priced, probing is held to the key's rate like any call.
 */
export const FORBIDDEN_COST = 1;

/**
 * The protected-route check, in the order the answers must come: no token → 401
 * UNAUTHENTICATED; a bad, expired, revoked or rotated-away token → 401 INVALID_TOKEN; a browser
 * key's token from an Origin outside its list → 403 KEY_ORIGIN_NOT_ALLOWED; a token without the
 * route's scope → 403 FORBIDDEN; an exhausted budget → 429. Key status and budget are one
 * Redis round trip. A 403 spends FORBIDDEN_COST, and past the budget a missing scope is a 429 too.
 */
export function createAccessGuard(
  verifier: TokenVerifier,
  limiter: RateLimiter,
  options: { registry?: Registry } = {},
) {
  const limited = options.registry && rateLimitedCounter(options.registry);
  return async (context: RequestContext, route: GuardedRoute): Promise<Admission> => {
    const token = bearerToken(context.header("authorization"));
    const verdict = await verifier.verify(token);
    if (!verdict.ok) throw invalidToken(verdict.reason);
    const { claims } = verdict;
    // A browser key's token from another Origin is refused like a missing scope, and priced like one.
    const hasScope = claims.scopes.has(route.scope) && originAllowed(claims.allowedOrigins, context.header("origin"));
    const admitted = await limiter.admit(
      claims.keyId,
      claims.secretVersion,
      claims.tier,
      hasScope ? route.cost : FORBIDDEN_COST,
    );
    if (admitted.kind === "registry-rebuilding") {
      throw new HttpProblem({
        code: "REBUILDING",
        grpcStatus: status.UNAVAILABLE,
        detail: "the API-key registry is being rebuilt after its store was lost; retry shortly",
        extras: { retryAfterSeconds: REBUILDING_RETRY_AFTER_SECONDS },
        headers: { "retry-after": String(REBUILDING_RETRY_AFTER_SECONDS) },
      });
    }
    if (admitted.kind === "revoked") throw invalidToken("the API key was revoked");
    if (admitted.kind === "rotated") throw invalidToken("the API key's secret was rotated after this token was issued");
    const headers = rateLimitHeaders(admitted);
    if (!originAllowed(claims.allowedOrigins, context.header("origin")) && admitted.kind !== "limited")
      throw keyOriginNotAllowed(context.header("origin"), headers);
    if (!hasScope && admitted.kind !== "limited") {
      throw new HttpProblem({
        code: "FORBIDDEN",
        grpcStatus: status.PERMISSION_DENIED,
        detail: `this API key lacks the scope ${route.scope}`,
        extras: { requiredScope: route.scope },
        headers: { ...headers, "www-authenticate": `${REALM}, error="insufficient_scope", scope="${route.scope}"` },
      });
    }
    if (admitted.kind === "limited") {
      limited?.inc({ tier: admitted.tier.name });
      const retryAfter = Math.max(1, Math.ceil(admitted.retryAfterMs / 1000));
      throw new HttpProblem({
        code: "RATE_LIMITED",
        grpcStatus: status.RESOURCE_EXHAUSTED,
        detail: `the rate budget of tier ${admitted.tier.name} is spent; retry after ${retryAfter} s`,
        extras: { violatedPolicies: ["default"], retryAfterSeconds: retryAfter },
        headers: { ...headers, "retry-after": String(retryAfter) },
      });
    }
    return {
      keyId: claims.keyId,
      headers,
      credential: { secretVersion: claims.secretVersion, tier: claims.tier, expiresAt: claims.expiresAt },
    };
  };
}

/** `gateway_rate_limited_total{tier}`, once per registry. */
function rateLimitedCounter(registry: Registry): Counter<"tier"> {
  return (
    (registry.getSingleMetric("gateway_rate_limited_total") as Counter<"tier"> | undefined) ??
    new Counter({
      name: "gateway_rate_limited_total",
      help: "Requests refused with 429 because the API key's rate budget was spent, by the key's tier.",
      labelNames: ["tier"],
      registers: [registry],
    })
  );
}

function bearerToken(header: string | undefined): string {
  if (header === undefined || header.trim() === "") {
    throw new HttpProblem({
      code: "UNAUTHENTICATED",
      grpcStatus: status.UNAUTHENTICATED,
      detail: "this route needs an access token: Authorization: Bearer <access_token> (get one from POST /auth)",
      headers: { "www-authenticate": REALM },
    });
  }
  const match = /^Bearer +([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(header);
  if (!match) throw invalidToken("the Authorization header is not of the form 'Bearer <access_token>'");
  return match[1]!;
}

/** A server key's token (no list) goes anywhere; a browser key's only with an Origin in its list. */
function originAllowed(allowedOrigins: readonly string[] | undefined, origin: string | undefined): boolean {
  return allowedOrigins === undefined || (origin !== undefined && allowedOrigins.includes(origin));
}

/**
 * 403 KEY_ORIGIN_NOT_ALLOWED: a browser key's token sent without an Origin from its list. Browsers
 * always send Origin on cross-origin calls and pages cannot change it, so this stops another site's
 * pages from using a leaked token; a non-browser client can send any Origin (see auth's README).
 */
function keyOriginNotAllowed(origin: string | undefined, headers: Record<string, string>): HttpProblem {
  return new HttpProblem({
    code: "KEY_ORIGIN_NOT_ALLOWED",
    grpcStatus: status.PERMISSION_DENIED,
    detail:
      origin === undefined
        ? "this token is a browser key's: it is accepted only from a web page on one of the key's origins, and this request has no Origin header"
        : `this token is a browser key's, and the key is not allowed from the origin ${JSON.stringify(origin.slice(0, 200))}`,
    headers,
  });
}

function invalidToken(reason: string): HttpProblem {
  return new HttpProblem({
    code: "INVALID_TOKEN",
    grpcStatus: status.UNAUTHENTICATED,
    detail: reason,
    headers: {
      "www-authenticate": `${REALM}, error="invalid_token", error_description="${reason.replaceAll('"', "'")}"`,
    },
  });
}

/** IETF httpapi RateLimit fields: the policy (quota over the window it refills in) and what is left. */
export function rateLimitHeaders(verdict: Extract<AdmitVerdict, { tier: Tier }>): Record<string, string> {
  const window = Math.ceil(verdict.tier.burst / verdict.tier.ratePerSecond);
  return {
    "ratelimit-policy": `"default";q=${verdict.tier.burst};w=${window}`,
    ratelimit: `"default";r=${Math.max(0, verdict.remaining)};t=${Math.ceil(Math.max(0, verdict.resetMs) / 1000)}`,
  };
}
