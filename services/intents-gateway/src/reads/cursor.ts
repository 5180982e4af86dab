import { invalidArgument } from "@platform/errors";

/**
 * Page cursors of the user lists: the last (score, member) served, bound to the list and the user
 * it came from, as base64url JSON. Opaque to clients; a cursor from another query, or anything
 * that does not decode, is INVALID_CURSOR.
 */
export interface ListPosition {
  /** The zset score as Redis prints it (an integer for these lists). */
  score: string;
  member: string;
}

export interface CursorScope {
  list: "pending" | "expired";
  userAddress: string;
}

interface CursorBody {
  v: 1;
  l: CursorScope["list"];
  u: string;
  s: string;
  m: string;
}

export function encodeCursor(scope: CursorScope, position: ListPosition): string {
  const body: CursorBody = { v: 1, l: scope.list, u: scope.userAddress, s: position.score, m: position.member };
  return Buffer.from(JSON.stringify(body)).toString("base64url");
}

export function decodeCursor(cursor: string, scope: CursorScope): ListPosition {
  const invalid = () =>
    invalidArgument("INVALID_CURSOR", "cursor is not a cursor of this list; start again without it", {
      parameter: "cursor",
    });
  if (!/^[A-Za-z0-9_-]{1,1024}$/.test(cursor)) throw invalid();
  let body: Partial<CursorBody>;
  try {
    body = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Partial<CursorBody>;
  } catch {
    throw invalid();
  }
  if (
    body === null ||
    typeof body !== "object" ||
    body.v !== 1 ||
    body.l !== scope.list ||
    body.u !== scope.userAddress ||
    typeof body.s !== "string" ||
    !/^-?\d+(\.\d+)?$/.test(body.s) ||
    typeof body.m !== "string" ||
    body.m.length === 0
  ) {
    throw invalid();
  }
  return { score: body.s, member: body.m };
}
