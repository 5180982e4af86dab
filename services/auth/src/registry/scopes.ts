/** The scopes a key may carry (API.md, "Protected routes"); the gateway maps routes onto them. */
export const SCOPES = ["data:read", "intents:read", "intents:write"] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
