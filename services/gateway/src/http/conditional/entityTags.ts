import { hash } from "node:crypto";

/**
 * Entity tags of the Data API's answers and the If-None-Match field that names them (RFC 9110
 * §8.8.3, §13.1.2).
 *
 * An answer's tag is strong and derived from exactly what is sent: the SHA-1 of its JSON text,
 * base64url. Two answers with the same text (the same as_of block hash, the same parameters as
 * they go back into links, the same data) have the same tag, on every gateway replica, and any
 * change of the text changes it. SHA-1 here is a fingerprint, not a defence: nobody gains by
 * forging a collision with their own cached copy. Hashing the text costs a fraction of
 * JSON.stringify's time for the same object, even for the largest answer (every subnet with its
 * pool): bench/data's CPU profiles (BENCH_CPU_PROFILE=<dir>) show its share.
 */
export function entityTagOf(text: string | Buffer): string {
  return `"${hash("sha1", text, "base64url")}"`;
}

/** What an If-None-Match field asks: any current representation (`*`), or one of these tags. */
export type IfNoneMatch = { any: true } | { any: false; tags: ReadonlySet<string> };

const ANY: IfNoneMatch = { any: true };

/**
 * Reads an If-None-Match field: `*`, or a comma-separated list of entity tags, each `"opaque"` or
 * weak `W/"opaque"` (repeated header lines arrive joined with ", "). Tags keep their quotes and
 * lose `W/`: If-None-Match compares weakly, so `W/"x"` matches `"x"`. An opaque tag may itself hold
 * commas, so the list is read tag by tag, not split. Undefined for an absent, empty or malformed
 * field: the request is then answered as an unconditional one.
 */
export function parseIfNoneMatch(field: string | undefined): IfNoneMatch | undefined {
  if (field === undefined) return undefined;
  if (field.trim() === "*") return ANY;
  const tags = new Set<string>();
  let at = 0;
  while (at < field.length) {
    const char = field[at]!;
    if (char === " " || char === "\t" || char === ",") {
      at += 1;
      continue;
    }
    if (field.startsWith("W/", at)) at += 2;
    if (field[at] !== '"') return undefined;
    const end = field.indexOf('"', at + 1);
    if (end < 0) return undefined;
    const tag = field.slice(at, end + 1);
    if (!OPAQUE_TAG.test(tag)) return undefined;
    tags.add(tag);
    at = end + 1;
    while (field[at] === " " || field[at] === "\t") at += 1;
    if (at < field.length && field[at] !== ",") return undefined;
  }
  return tags.size === 0 ? undefined : { any: false, tags };
}

/** `"` etagc* `"`, etagc being %x21 / %x23-7E / obs-text. */
const OPAQUE_TAG = /^"[\x21\x23-\x7e\x80-\xff]*"$/;

/** Whether the field names `tag` (weak comparison; `*` names any current representation). */
export function matchesTag(condition: IfNoneMatch, tag: string): boolean {
  return condition.any || condition.tags.has(tag);
}
