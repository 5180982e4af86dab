/**
 * The share of a route's rate-limit cost that a conditional read spends when the gateway proves,
 * before admitting it, that the caller's copy is still current (API.md: a 304 costs less rate-limit
 * budget than a 200). Such a 304 costs the gateway a map lookup instead of a backend call and
 * sends no body, so it spends a fifth: 0.2 units on a 1-unit route, 0.4 on a 2-unit one (the GCRA
 * script takes fractional costs). Admission happens before the handler runs, so a request the
 * gateway cannot prove current from memory spends the route's full cost, even when the backend's
 * answer then turns out unchanged and it is answered 304 too.
 */
export const NOT_MODIFIED_COST_SHARE = 0.2;

export const notModifiedCost = (routeCost: number): number => routeCost * NOT_MODIFIED_COST_SHARE;
