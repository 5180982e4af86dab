import { z } from "zod";

/** Field builders for environment schemas: each parses the string form and says what it expected. */
export const vars = {
  string: () => z.string({ error: "must be a string" }),

  port: () =>
    z.coerce
      .number({ error: "must be a TCP port number" })
      .int({ error: "must be a whole TCP port number" })
      .min(0, { error: "must be a TCP port between 0 and 65535" })
      .max(65535, { error: "must be a TCP port between 0 and 65535" }),

  positiveInt: () =>
    z.coerce
      .number({ error: "must be a positive whole number" })
      .int({ error: "must be a positive whole number" })
      .positive({ error: "must be a positive whole number" }),

  nonNegativeInt: () =>
    z.coerce
      .number({ error: "must be a whole number, 0 or more" })
      .int({ error: "must be a whole number, 0 or more" })
      .min(0, { error: "must be a whole number, 0 or more" }),

  /** A Kafka `retention.ms`: a positive whole number of milliseconds, or -1 for ever. */
  retentionMs: () =>
    z.coerce
      .number({ error: "must be a whole number of milliseconds, or -1 for ever" })
      .int({ error: "must be a whole number of milliseconds, or -1 for ever" })
      .refine((value) => value === -1 || (value > 0 && Number.isSafeInteger(value)), {
        error: "must be a whole number of milliseconds, or -1 for ever",
      }),

  /** A host:port pair such as 127.0.0.1:50051. */
  hostPort: () =>
    z.string().regex(/^[A-Za-z0-9.\-_[\]:]+:\d{1,5}$/, { error: "must be host:port, e.g. 127.0.0.1:50051" }),

  url: (protocols: readonly string[]) =>
    z.string().refine(
      (value) => {
        try {
          return protocols.includes(new URL(value).protocol.replace(/:$/, ""));
        } catch {
          return false;
        }
      },
      { error: `must be a URL with scheme ${protocols.join(" or ")}` },
    ),

  /** Comma-separated list; blanks dropped. */
  list: () =>
    z
      .string()
      .transform((value) =>
        value
          .split(",")
          .map((item) => item.trim())
          .filter((item) => item.length > 0),
      )
      .refine((items) => items.length > 0, { error: "must list at least one item, comma separated" }),

  /** Comma-separated host:port list (Kafka brokers). */
  hostPortList: () =>
    z
      .string()
      .transform((value) =>
        value
          .split(",")
          .map((item) => item.trim())
          .filter((item) => item.length > 0),
      )
      .refine((items) => items.length > 0 && items.every((item) => /^[A-Za-z0-9.\-_]+:\d{1,5}$/.test(item)), {
        error: "must be a comma-separated list of host:port",
      }),

  boolean: () =>
    z
      .enum(["true", "false", "1", "0"], { error: "must be true or false" })
      .transform((value) => value === "true" || value === "1"),

  logLevel: () =>
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], { error: "must be a pino level" }),

  oneOf: <const T extends readonly [string, ...string[]]>(values: T) =>
    z.enum(values, { error: `must be one of ${values.join(", ")}` }),
};
