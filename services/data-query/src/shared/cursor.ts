import { createHash } from "node:crypto";
import { type AppError, invalidArgument } from "@platform/errors";

/**
 * Opaque page cursors: a position in a collection (the sort key of the last item served, never an
 * offset, so pages stay stable while items are added) bound to the query that produced it. The
 * body is base64url JSON `{v, q, p}`: `q` a digest of the query's identifying parts (route,
 * subject, filters, order), `p` the position as string fields. A cursor of another query, or
 * anything that does not decode, is INVALID_CURSOR.
 */
export type CursorPosition = Record<string, string>;

interface CursorBody {
  v: 1;
  q: string;
  p: CursorPosition;
}

const MAX_CURSOR_LENGTH = 2_048;

/** A short digest of everything that makes two queries different collections (JSON-serialisable). */
export function queryScope(parts: unknown): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 16);
}

export function encodeCursor(scope: string, position: CursorPosition): string {
  const body: CursorBody = { v: 1, q: scope, p: position };
  return Buffer.from(JSON.stringify(body)).toString("base64url");
}

export function invalidCursor(): AppError {
  return invalidArgument("INVALID_CURSOR", "cursor is not a cursor of this query; start again without it", {
    parameter: "cursor",
  });
}

/**
 * The position a cursor carries, after checking it belongs to `scope` and has every field in
 * `fields` matching its pattern (and each of `optionalFields` it has).
 */
export function decodeCursor(
  cursor: string,
  scope: string,
  fields: Record<string, RegExp>,
  optionalFields: Record<string, RegExp> = {},
): CursorPosition {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor();
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalidCursor();
  }
  if (typeof body !== "object" || body === null) throw invalidCursor();
  const { v, q, p } = body as Partial<CursorBody>;
  if (v !== 1 || q !== scope || typeof p !== "object" || p === null) throw invalidCursor();
  const position: CursorPosition = {};
  for (const [name, pattern] of Object.entries(fields)) {
    const value = (p as Record<string, unknown>)[name];
    if (typeof value !== "string" || !pattern.test(value)) throw invalidCursor();
    position[name] = value;
  }
  // Fields later versions of a cursor added: absent from older cursors, checked when present.
  for (const [name, pattern] of Object.entries(optionalFields)) {
    const value = (p as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (typeof value !== "string" || !pattern.test(value)) throw invalidCursor();
    position[name] = value;
  }
  return position;
}
