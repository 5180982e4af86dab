import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { entityTagOf, matchesTag, parseIfNoneMatch } from "./entityTags.js";
import { asOfTimestampOf, cacheControlOf, secondsUntilNextBlock } from "./freshness.js";

describe("entity tags", () => {
  it("are strong, quoted, and the SHA-1 of exactly the text sent", () => {
    const text = JSON.stringify({ as_of: { block_hash: "0xab" }, price: "1.5" });
    const tag = entityTagOf(text);
    expect(tag).toBe(`"${createHash("sha1").update(text).digest("base64url")}"`);
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(entityTagOf(text)).toBe(tag);
    expect(entityTagOf(text.replace("1.5", "1.6"))).not.toBe(tag);
  });
});

describe("If-None-Match", () => {
  const tags = (field: string) => {
    const condition = parseIfNoneMatch(field);
    return condition === undefined || condition.any ? condition : [...condition.tags];
  };

  it("reads a list of tags, weak ones as their opaque tag, across joined header lines", () => {
    expect(tags('"a"')).toEqual(['"a"']);
    expect(tags(' "a" , W/"b",,"c"\t')).toEqual(['"a"', '"b"', '"c"']);
    // Repeated header lines arrive joined with ", ".
    expect(tags('"a", "b"')).toEqual(['"a"', '"b"']);
    // An opaque tag may hold commas and spaces are not etagc, so the list is read tag by tag.
    expect(tags('"x,y", "z"')).toEqual(['"x,y"', '"z"']);
    expect(tags('""')).toEqual(['""']);
  });

  it("reads `*` as any current representation", () => {
    expect(parseIfNoneMatch("*")).toEqual({ any: true });
    expect(parseIfNoneMatch(" * ")).toEqual({ any: true });
  });

  it("ignores an absent, empty or malformed field: the request is then unconditional", () => {
    for (const field of [undefined, "", "  ", ",", "a", '"a', "W/a", 'w/"a"', '"a" "b"', '"a", *', '"a b"', '"a"x']) {
      expect(parseIfNoneMatch(field), String(field)).toBeUndefined();
    }
  });

  it("matches weakly: a weak tag names the strong one with the same opaque tag; `*` names any", () => {
    const tag = entityTagOf("{}");
    expect(matchesTag(parseIfNoneMatch(`W/${tag}`)!, tag)).toBe(true);
    expect(matchesTag(parseIfNoneMatch(`"other", ${tag}`)!, tag)).toBe(true);
    expect(matchesTag(parseIfNoneMatch('"other"')!, tag)).toBe(false);
    expect(matchesTag(parseIfNoneMatch("*")!, tag)).toBe(true);
  });
});

describe("freshness of an answer", () => {
  const asOf = "2026-08-20T12:00:00.000Z";
  const at = (offsetMs: number) => Date.parse(asOf) + offsetMs;

  it("runs to the next block expected after as_of, in whole seconds rounded down", () => {
    expect(secondsUntilNextBlock(asOf, 12, at(0))).toBe(12);
    expect(secondsUntilNextBlock(asOf, 12, at(2_500))).toBe(9);
    expect(secondsUntilNextBlock(asOf, 12, at(11_999))).toBe(0);
  });

  it("is never more than one block (a head ahead of this clock) nor less than 0 (a block overdue)", () => {
    expect(secondsUntilNextBlock(asOf, 12, at(-60_000))).toBe(12);
    expect(secondsUntilNextBlock(asOf, 2, at(-60_000))).toBe(2);
    expect(secondsUntilNextBlock(asOf, 12, at(30_000))).toBe(0);
  });

  it("is 0 without an as_of to count from", () => {
    expect(secondsUntilNextBlock(undefined, 12, at(0))).toBe(0);
    expect(secondsUntilNextBlock("yesterday", 12, at(0))).toBe(0);
    expect(asOfTimestampOf({ as_of: null })).toBeUndefined();
    expect(asOfTimestampOf({ _links: {} })).toBeUndefined();
    expect(asOfTimestampOf("text")).toBeUndefined();
    expect(asOfTimestampOf({ as_of: { timestamp: asOf } })).toBe(asOf);
  });

  it("is private: the answer was served to one API key", () => {
    expect(cacheControlOf(7)).toBe("private, max-age=7");
  });
});
