import type { ServerResponse } from "node:http";

/**
 * Adds request headers to an answer's `Vary`, keeping those already named: CORS sets `Origin`
 * before any route runs, and a route that replaced it would let a shared cache hand one origin's
 * answer to another. Case-insensitive, no duplicates; `*` stays alone.
 */
export function appendVary(response: ServerResponse, ...fields: string[]): void {
  const current = response.getHeader("vary");
  const named = (Array.isArray(current) ? current.join(",") : current === undefined ? "" : String(current))
    .split(",")
    .map((field) => field.trim())
    .filter((field) => field !== "");
  if (named.includes("*")) return;
  const seen = new Set(named.map((field) => field.toLowerCase()));
  for (const field of fields) {
    if (seen.has(field.toLowerCase())) continue;
    seen.add(field.toLowerCase());
    named.push(field);
  }
  response.setHeader("vary", named.join(", "));
}
