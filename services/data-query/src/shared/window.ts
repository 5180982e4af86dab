import { invalidArgument } from "@platform/errors";
import type { TimeWindow } from "@platform/proto/common/v1/common";

/**
 * A history window, resolved: time bounds are half-open [startMs, endMs); block bounds are
 * inclusive [start, end].
 */
export type ResolvedWindow =
  | { kind: "time"; startMs: number; endMs: number }
  | { kind: "blocks"; start: bigint; end: bigint };

export interface WindowRules {
  /** Span when `start` is absent (end defaults to now). */
  defaultSpanMs: number;
  /** Largest span; above it WINDOW_TOO_LARGE. */
  maxSpanMs: number;
  /** Largest block span; above it WINDOW_TOO_LARGE. Defaults to maxSpanMs at 12 s per block. */
  maxBlockSpan?: bigint;
}

/** 12 s blocks (Subtensor), so 7,200 a day: turns a time maximum into a block maximum. */
export const BLOCK_TIME_MS = 12_000;

// The gateway sends toISOString() forms, which for instants before year 0 carry a signed six-digit year.
const RFC3339 = /^(\d{4}|[+-]\d{6})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/** Parses an RFC 3339 time of a request field; INVALID_PARAMETER naming it otherwise. */
export function parseTime(value: string, parameter: string): number {
  const ms = RFC3339.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms))
    throw invalidArgument("INVALID_PARAMETER", `${parameter} must be an RFC 3339 time`, { parameter });
  return ms;
}

export function windowTooLarge(maxSeconds: number, detail: string) {
  return invalidArgument("WINDOW_TOO_LARGE", detail, { maxWindowSeconds: maxSeconds });
}

/**
 * Resolves a request's window against the route's rules: defaults (end = now, start = end -
 * default span), the order of the bounds, no mixing of time and block bounds, and the maximum span.
 */
export function resolveWindow(
  window: TimeWindow | undefined,
  rules: WindowRules,
  nowMs: number = Date.now(),
): ResolvedWindow {
  const hasTime = window?.start !== undefined || window?.end !== undefined;
  const hasBlocks = window?.blockStart !== undefined || window?.blockEnd !== undefined;
  if (hasTime && hasBlocks) {
    throw invalidArgument("INVALID_PARAMETER", "give either start/end or block_start/block_end, not both", {
      parameter: "block_start",
    });
  }
  if (hasBlocks) {
    const start = window?.blockStart === undefined ? undefined : parseBlock(window.blockStart, "block_start");
    const end = window?.blockEnd === undefined ? undefined : parseBlock(window.blockEnd, "block_end");
    const maxBlockSpan = rules.maxBlockSpan ?? BigInt(Math.floor(rules.maxSpanMs / BLOCK_TIME_MS));
    const defaultBlockSpan = BigInt(Math.floor(rules.defaultSpanMs / BLOCK_TIME_MS));
    const resolvedEnd = end ?? (start === undefined ? 0n : start + defaultBlockSpan - 1n);
    const resolvedStart =
      start ?? (resolvedEnd - defaultBlockSpan + 1n < 0n ? 0n : resolvedEnd - defaultBlockSpan + 1n);
    if (resolvedEnd < resolvedStart)
      throw invalidArgument("INVALID_PARAMETER", "block_end must not be below block_start", { parameter: "block_end" });
    if (resolvedEnd - resolvedStart + 1n > maxBlockSpan) {
      throw windowTooLarge(
        Math.floor(rules.maxSpanMs / 1_000),
        `the block window may span at most ${maxBlockSpan} blocks`,
      );
    }
    return { kind: "blocks", start: resolvedStart, end: resolvedEnd };
  }
  const startGiven = window?.start === undefined ? undefined : parseTime(window.start, "start");
  // A start still to come, with end left to its default (now): an empty window, not an error
  // (the client asked for nothing wrong; there is just nothing there yet).
  if (window?.end === undefined && startGiven !== undefined && startGiven >= nowMs)
    return { kind: "time", startMs: startGiven, endMs: startGiven };
  const endMs = window?.end === undefined ? nowMs : parseTime(window.end, "end");
  const startMs = startGiven ?? endMs - rules.defaultSpanMs;
  if (endMs <= startMs) throw invalidArgument("INVALID_PARAMETER", "end must be after start", { parameter: "end" });
  if (endMs - startMs > rules.maxSpanMs) {
    const days = rules.maxSpanMs / 86_400_000;
    throw windowTooLarge(
      Math.floor(rules.maxSpanMs / 1_000),
      `the window may span at most ${Number.isInteger(days) ? `${days} days` : `${rules.maxSpanMs / 1_000} seconds`}`,
    );
  }
  return { kind: "time", startMs, endMs };
}

function parseBlock(value: string, parameter: string): bigint {
  if (!/^\d{1,20}$/.test(value))
    throw invalidArgument("INVALID_PARAMETER", `${parameter} must be a block number`, { parameter });
  return BigInt(value);
}
