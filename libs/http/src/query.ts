import { z } from "zod";
import { wireSchemas } from "./wireSchemas.js";

/**
 * Query-string parameter schemas. A query value is always text (or a list of texts when the key
 * repeats), so these parse text strictly: `Number()` would take "0x10", "1e3" and " 7", which a
 * public API should refuse with a 400 naming the parameter rather than guess at.
 */

// RFC 3339 section 5.6 `date-time`, as JSON Schema's format of that name: any number of fraction
// digits (read to the millisecond), and a leap second 60, read as the second after :59.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const UNIX_SECONDS = /^\d{1,11}$/;

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return [31, 0, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
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
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = match[7] ?? "";
  const sign = match[8] === "-" ? -1 : 1;
  const offsetHours = match[9] === undefined ? 0 : Number(match[9]);
  const offsetMinutes = match[10] === undefined ? 0 : Number(match[10]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  // setUTCFullYear, not Date.UTC, which reads years 0-99 as 1900-1999.
  const instant = new Date(0);
  instant.setUTCFullYear(year, month - 1, day);
  instant.setUTCHours(hour, minute, second, Number(fraction.slice(0, 3).padEnd(3, "0")));
  instant.setTime(instant.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
  return Number.isNaN(instant.getTime()) ? undefined : instant.toISOString();
}

/** A time bound: RFC 3339 or unix seconds in, RFC 3339 UTC out. */
export const instantQuery = (
  description: string,
  examples: [string, string] = ["2026-08-20T00:00:00Z", "1787184000"],
) =>
  z
    .string()
    .transform((text, context) => {
      const instant = parseInstant(text);
      if (instant !== undefined) return instant;
      context.addIssue({ code: "custom", message: "must be an RFC 3339 time or unix seconds" });
      return z.NEVER;
    })
    .register(wireSchemas, {
      jsonSchema: {
        description: `${description}; RFC 3339 or unix seconds`,
        anyOf: [
          { type: "string", format: "date-time" },
          { type: "string", pattern: UNIX_SECONDS.source },
        ],
        examples,
      },
    });

/** A decimal integer written plainly (no sign, exponent, hex or spaces) within [min, max]. */
/** `default`: the value the route uses when the parameter is absent, published as the schema's `default`. */
export const integerQuery = (options: { min: number; max: number; description: string; default?: number }) =>
  z
    .string()
    .transform((text, context) => {
      const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
      if (Number.isSafeInteger(value) && value >= options.min && value <= options.max) return value;
      context.addIssue({ code: "custom", message: `must be a whole number between ${options.min} and ${options.max}` });
      return z.NEVER;
    })
    // Documented as the integer it is; on the wire every query value is text.
    .meta({
      description: options.description,
      type: "integer",
      minimum: options.min,
      maximum: options.max,
      ...(options.default === undefined ? {} : { default: options.default }),
    });

/** `true` or `false`, nothing else (a typo must not silently read as false). */
export const booleanQuery = (description: string) =>
  z
    .enum(["true", "false"], { error: "must be true or false" })
    .transform((text) => text === "true")
    .meta({ description });

/** How a list item is read from text, and how it is documented. */
export interface ListItem<T> {
  parse(text: string): { ok: true; value: T } | { ok: false; message: string; code?: string };
  /** The item's JSON Schema as a client would send it (an integer, an enum of names...). */
  schema: Record<string, unknown>;
}

/**
 * A list given comma-separated (`netuid=1,2`) or repeated (`netuid=1&netuid=2`), each item parsed
 * by `item`. Documented as an OpenAPI form-style array without explode (comma-separated), the
 * one form a schema can name; repetition is read the same. Items are taken as written: " 2" is
 * not an integer. The first bad item fails the parameter with the item's own message and code
 * (an INVALID_ADDRESS item keeps its code).
 */
export function listQuery<T>(item: ListItem<T>, options: { max: number; description: string }) {
  const description = `${options.description}; comma-separated or repeated, at most ${options.max}`;
  return z
    .union([z.string(), z.array(z.string())], {
      error: (issue) => (issue.input === undefined ? "is required" : "must be a comma-separated list"),
    })
    .transform((raw, context) => {
      const texts = (Array.isArray(raw) ? raw : [raw]).flatMap((part) => part.split(","));
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
        const parsed = item.parse(text);
        if (!parsed.ok) {
          context.addIssue({
            code: "custom",
            message: `item '${text}' ${parsed.message}`,
            ...(parsed.code ? { params: { code: parsed.code } } : {}),
          });
          return z.NEVER;
        }
        values.push(parsed.value);
      }
      return values;
    })
    .register(wireSchemas, {
      jsonSchema: { description, type: "array", items: item.schema, minItems: 1, maxItems: options.max },
    });
}

/** A list item: a whole number in [min, max]. */
export function integerItem(min: number, max: number): ListItem<number> {
  return {
    parse(text) {
      const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
      return Number.isSafeInteger(value) && value >= min && value <= max
        ? { ok: true, value }
        : { ok: false, message: `must be a whole number between ${min} and ${max}` };
    },
    schema: { type: "integer", minimum: min, maximum: max },
  };
}

/** A list item: one of `names`. */
export function nameItem<N extends string>(names: readonly N[]): ListItem<N> {
  return {
    parse: (text) =>
      (names as readonly string[]).includes(text)
        ? { ok: true, value: text as N }
        : { ok: false, message: `must be one of ${names.join(", ")}` },
    schema: { type: "string", enum: [...names] },
  };
}
