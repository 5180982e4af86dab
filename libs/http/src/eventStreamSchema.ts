import type { z } from "zod";

/** The form of an event stream's `id:` (a resumable position, `<ms>-<seq>`). */
export const EVENT_ID_PATTERN = "^[0-9]{1,20}-[0-9]{1,20}$";

/**
 * The schema of one event of a `text/event-stream` answer, in the form OpenAPI 3.1 tools read (a
 * media type's `schema` describes each event of a stream; OpenAPI 3.2 moved that to `itemSchema`,
 * which a 3.1 document may not carry): the event as an SSE parser yields it, `{event, id, data}`,
 * one `oneOf` branch per event name (`event` its `const`), `data` being the JSON text of that
 * event's schema (`contentMediaType` and `contentSchema`, JSON Schema 2020-12), a `$ref` to its
 * component where it is one. `schemaOf` turns a zod schema into the document's JSON Schema.
 */
export function eventStreamSchema(
  events: Record<string, z.ZodType>,
  schemaOf: (schema: z.ZodType) => Record<string, unknown>,
): Record<string, unknown> {
  return {
    description:
      "One server-sent event (WHATWG HTML), as an SSE parser yields it: its `event:` name, its `id:` and its `data:` text, which is JSON of the schema of that event name. A stream is a sequence of them, with a comment line (`: keep-alive`) every 15 s.",
    oneOf: Object.entries(events).map(([name, data]) => ({
      type: "object",
      title: name,
      required: ["event", "data"],
      properties: {
        event: { type: "string", const: name },
        id: {
          type: "string",
          pattern: EVENT_ID_PATTERN,
          description:
            "The resumable position (`<ms>-<seq>`): send the last one back as Last-Event-ID. An event that moves no position (`gap`, `dropped`, `closed`) has no `id:` line of its own, so an SSE parser gives it the stream's last id.",
        },
        data: {
          type: "string",
          contentMediaType: "application/json",
          contentSchema: schemaOf(data),
        },
      },
      additionalProperties: false,
    })),
  };
}
