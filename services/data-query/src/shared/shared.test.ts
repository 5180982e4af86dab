import { AppError } from "@platform/errors";
import { Interval, SortOrder } from "@platform/proto/common/v1/common";
import { describe, expect, it } from "vitest";
import { bucketStartMs, bucketStarts, resolveInterval } from "./buckets.js";
import { decodeCursor, encodeCursor, queryScope } from "./cursor.js";
import { formatDecimal, mulIntByDecimal } from "./decimal.js";
import { orderOf, pageLimitOf } from "./page.js";
import { resolveWindow } from "./window.js";

const DAY = 86_400_000;

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof AppError ? error.code : "NOT_APP_ERROR";
  }
  return undefined;
}

describe("cursors", () => {
  it("round-trip a position within the query that made them", () => {
    const scope = queryScope(["tx", "0xabc", { order: "desc" }]);
    const cursor = encodeCursor(scope, { s: "12", m: "000000000012|x" });
    expect(decodeCursor(cursor, scope, { s: /^\d+$/, m: /.+/ })).toEqual({ s: "12", m: "000000000012|x" });
  });

  it("reject a cursor of another query, garbage, or a missing field as INVALID_CURSOR", () => {
    const scope = queryScope(["a"]);
    const cursor = encodeCursor(scope, { s: "1" });
    expect(codeOf(() => decodeCursor(cursor, queryScope(["b"]), { s: /^\d+$/ }))).toBe("INVALID_CURSOR");
    expect(codeOf(() => decodeCursor("not a cursor!", scope, { s: /^\d+$/ }))).toBe("INVALID_CURSOR");
    expect(codeOf(() => decodeCursor("AAAA", scope, { s: /^\d+$/ }))).toBe("INVALID_CURSOR");
    expect(codeOf(() => decodeCursor(cursor, scope, { s: /^\d+$/, m: /.+/ }))).toBe("INVALID_CURSOR");
    expect(codeOf(() => decodeCursor(encodeCursor(scope, { s: "x" }), scope, { s: /^\d+$/ }))).toBe("INVALID_CURSOR");
  });
});

describe("windows", () => {
  const rules = { defaultSpanMs: 90 * DAY, maxSpanMs: 366 * DAY };
  const now = Date.parse("2026-08-20T12:00:00.000Z");

  it("default to the route's span ending now", () => {
    expect(resolveWindow(undefined, rules, now)).toEqual({ kind: "time", startMs: now - 90 * DAY, endMs: now });
  });

  it("take RFC 3339 bounds and refuse bad ones naming the parameter", () => {
    expect(
      resolveWindow({ start: "2026-08-01T00:00:00Z", end: "2026-08-02T00:00:00Z", interval: 0 }, rules, now),
    ).toEqual({
      kind: "time",
      startMs: Date.parse("2026-08-01T00:00:00Z"),
      endMs: Date.parse("2026-08-02T00:00:00Z"),
    });
    expect(codeOf(() => resolveWindow({ start: "yesterday", interval: 0 }, rules, now))).toBe("INVALID_PARAMETER");
    expect(
      codeOf(() =>
        resolveWindow({ start: "2026-08-02T00:00:00Z", end: "2026-08-01T00:00:00Z", interval: 0 }, rules, now),
      ),
    ).toBe("INVALID_PARAMETER");
  });

  it("answer a start still to come, end left to its default, with an empty window rather than an error", () => {
    const later = new Date(now + 60_000).toISOString();
    expect(resolveWindow({ start: later, interval: 0 }, rules, now)).toEqual({
      kind: "time",
      startMs: now + 60_000,
      endMs: now + 60_000,
    });
    expect(
      codeOf(() => resolveWindow({ start: later, end: new Date(now).toISOString(), interval: 0 }, rules, now)),
    ).toBe("INVALID_PARAMETER");
  });

  it("read the signed six-digit years the gateway writes for instants before year 0", () => {
    expect(
      resolveWindow(
        { start: "-000001-12-31T23:00:00.000Z", end: "0000-01-01T01:00:00.000Z", interval: 0 },
        { ...rules, maxSpanMs: 3 * DAY },
        now,
      ),
    ).toEqual({
      kind: "time",
      startMs: Date.parse("-000001-12-31T23:00:00.000Z"),
      endMs: Date.parse("0000-01-01T01:00:00.000Z"),
    });
  });

  it("refuse a span over the maximum with WINDOW_TOO_LARGE, time or blocks", () => {
    expect(
      codeOf(() =>
        resolveWindow({ start: "2025-01-01T00:00:00Z", end: "2026-08-01T00:00:00Z", interval: 0 }, rules, now),
      ),
    ).toBe("WINDOW_TOO_LARGE");
    expect(
      codeOf(() => resolveWindow({ blockStart: "0", blockEnd: String(366 * 7_200 + 1), interval: 0 }, rules, now)),
    ).toBe("WINDOW_TOO_LARGE");
    expect(resolveWindow({ blockStart: "10", blockEnd: "20", interval: 0 }, rules, now)).toEqual({
      kind: "blocks",
      start: 10n,
      end: 20n,
    });
  });

  it("refuse mixing time and block bounds", () => {
    expect(codeOf(() => resolveWindow({ start: "2026-08-01T00:00:00Z", blockEnd: "5", interval: 0 }, rules, now))).toBe(
      "INVALID_PARAMETER",
    );
  });
});

describe("buckets", () => {
  it("align hours, days and ISO weeks (Monday) to UTC", () => {
    const at = Date.parse("2026-08-20T13:45:10.000Z"); // a Thursday
    expect(new Date(bucketStartMs(at, Interval.INTERVAL_ONE_HOUR)).toISOString()).toBe("2026-08-20T13:00:00.000Z");
    expect(new Date(bucketStartMs(at, Interval.INTERVAL_ONE_DAY)).toISOString()).toBe("2026-08-20T00:00:00.000Z");
    expect(new Date(bucketStartMs(at, Interval.INTERVAL_ONE_WEEK)).toISOString()).toBe("2026-08-17T00:00:00.000Z");
  });

  it("list the buckets overlapping a half-open window", () => {
    const starts = bucketStarts(
      Date.parse("2026-08-20T10:30:00Z"),
      Date.parse("2026-08-20T13:00:00Z"),
      Interval.INTERVAL_ONE_HOUR,
    );
    expect(starts.map((ms) => new Date(ms).toISOString())).toEqual([
      "2026-08-20T10:00:00.000Z",
      "2026-08-20T11:00:00.000Z",
      "2026-08-20T12:00:00.000Z",
    ]);
  });

  it("resolve the route's default interval and refuse others", () => {
    const rules = {
      allowed: [Interval.INTERVAL_ONE_HOUR, Interval.INTERVAL_ONE_DAY],
      fallback: Interval.INTERVAL_ONE_DAY,
    };
    expect(resolveInterval(Interval.INTERVAL_UNSPECIFIED, rules)).toBe(Interval.INTERVAL_ONE_DAY);
    expect(codeOf(() => resolveInterval(Interval.INTERVAL_BLOCK, rules))).toBe("INVALID_PARAMETER");
  });
});

describe("pages and decimals", () => {
  it("apply default and maximum limits and the default order", () => {
    expect(pageLimitOf(undefined, { defaultLimit: 50, maxLimit: 200 })).toBe(50);
    expect(pageLimitOf({ limit: 7, cursor: "" }, { defaultLimit: 50, maxLimit: 200 })).toBe(7);
    expect(codeOf(() => pageLimitOf({ limit: 201, cursor: "" }, { defaultLimit: 50, maxLimit: 200 }))).toBe(
      "INVALID_PARAMETER",
    );
    expect(orderOf(SortOrder.SORT_ORDER_UNSPECIFIED, "desc")).toBe("desc");
    expect(orderOf(SortOrder.SORT_ORDER_ASC, "desc")).toBe("asc");
  });

  it("multiply amounts by decimal prices exactly, rounding toward zero", () => {
    expect(mulIntByDecimal(1_000_000_000n, "0.003927757700")).toBe(3_927_757n);
    expect(mulIntByDecimal(3n, "1")).toBe(3n);
    expect(formatDecimal(15n, 1)).toBe("1.5");
    expect(formatDecimal(-25n, 2)).toBe("-0.25");
    expect(formatDecimal(0n, 9)).toBe("0");
  });
});
