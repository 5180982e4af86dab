import { z } from "zod";

/**
 * Query-string parameter schemas. A query value is always text (or a list of texts when the key
 * repeats), so these parse text strictly: `Number()` would take "0x10", "1e3" and " 7", which a
 * public API should refuse with a 400 naming the parameter rather than guess at.
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const UNIX_SECONDS = /^\d{1,11}$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * An instant given as RFC 3339 (any offset) or as unix seconds, as RFC 3339 UTC with milliseconds
 * (`toISOString()`); undefined when the text is neither. Calendar fields are checked, because
 * `Date.parse` rolls "02-30" over into March.
 */
export function parseInstant(text: string): string | undefined {
  if (UNIX_SECONDS.test(text)) return new Date(Number(text) * 1000).toISOString();
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetHours = match[9] === undefined ? 0 : Number(match[9]);
  const offsetMinutes = match[10] === undefined ? 0 : Number(match[10]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const milliseconds = Date.parse(text);
  return Number.isNaN(milliseconds) ? undefined : new Date(milliseconds).toISOString();
}

/** A time bound: RFC 3339 or unix seconds in, RFC 3339 UTC out. */
export const instantQuery = (description: string) =>
  z
    .string()
    .transform((text, context) => {
      const instant = parseInstant(text);
      if (instant !== undefined) return instant;
      context.addIssue({ code: "custom", message: "must be an RFC 3339 time or unix seconds" });
      return z.NEVER;
    })
    .meta({ description: `${description}; RFC 3339 or unix seconds`, examples: ["2026-08-20T00:00:00Z", "1787184000"] });

/** A decimal integer written plainly (no sign, exponent, hex or spaces) within [min, max]. */
export const integerQuery = (options: { min: number; max: number; description: string }) =>
  z
    .string()
    .transform((text, context) => {
      const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
      if (Number.isSafeInteger(value) && value >= options.min && value <= options.max) return value;
      context.addIssue({ code: "custom", message: `must be a whole number between ${options.min} and ${options.max}` });
      return z.NEVER;
    })
    // Documented as the integer it is; on the wire every query value is text.
    .meta({ description: options.description, type: "integer", minimum: options.min, maximum: options.max });

/** `true` or `false`, nothing else (a typo must not silently read as false). */
export const booleanQuery = (description: string) =>
  z
    .enum(["true", "false"], { error: "must be true or false" })
    .transform((text) => text === "true")
    .meta({ description });

/**
 * A list given comma-separated (`netuid=1,2`), repeated (`netuid=1&netuid=2`) or both, each item
 * parsed by `item`. The first bad item fails the parameter with the item's own message and code
 * (an INVALID_ADDRESS item keeps its code).
 */
export function listQuery<T>(item: (text: string) => { ok: true; value: T } | { ok: false; message: string; code?: string }, options: { max: number; description: string }) {
  return z
    .union([z.string(), z.array(z.string())], { error: (issue) => (issue.input === undefined ? "is required" : "must be a comma-separated list") })
    .transform((raw, context) => {
      const texts = (Array.isArray(raw) ? raw : [raw]).flatMap((part) => part.split(",")).map((text) => text.trim());
      if (texts.some((text) => text === "")) {
        context.addIssue({ code: "custom", message: "has an empty item" });
        return z.NEVER;
      }
      if (texts.length > options.max) {
        context.addIssue({ code: "custom", message: `has more than ${options.max} items` });
        return z.NEVER;
      }
      const values: T[] = [];
      for (const text of texts) {
        const parsed = item(text);
        if (!parsed.ok) {
          context.addIssue({ code: "custom", message: `item '${text}' ${parsed.message}`, ...(parsed.code ? { params: { code: parsed.code } } : {}) });
          return z.NEVER;
        }
        values.push(parsed.value);
      }
      return values;
    })
    .meta({ description: `${options.description}; comma-separated or repeated, at most ${options.max}` });
}

/** A list item parser for whole numbers in [min, max]. */
export function integerItem(min: number, max: number) {
  return (text: string): { ok: true; value: number } | { ok: false; message: string } => {
    const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
    return Number.isSafeInteger(value) && value >= min && value <= max
      ? { ok: true, value }
      : { ok: false, message: `must be a whole number between ${min} and ${max}` };
  };
}
