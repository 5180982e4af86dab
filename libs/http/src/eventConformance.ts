import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { rewriteRefs, templatePattern } from "./conformanceRefs.js";

/** One server-sent event as an SSE parser yields it: `data` is the text of its `data:` lines. */
export interface RecordedEvent {
  event: string;
  id?: string;
  data: string;
}

interface EventBranch {
  properties: { event: { const: string }; data: { contentSchema?: Record<string, unknown> } };
}
interface StreamDocument {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>
  >;
  components: { schemas: Record<string, unknown> };
}

/**
 * Holds the events of a `text/event-stream` answer against the document: the operation's stream
 * schema describes one event, a `oneOf` branch per event name (libs/http eventStreamSchema.ts), each
 * `{event, id, data}` with `data` the JSON text of its `contentSchema`. An event is checked by its
 * name's branch, then its data, parsed, by that branch's content schema. For tests only.
 * Returns the violations of one event of an answer to `GET path` (no query).
 */
export function createEventConformance(
  document: Record<string, unknown>,
): (path: string, event: RecordedEvent) => string[] {
  const doc = document as unknown as StreamDocument;
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: "components", $defs: rewriteRefs(doc.components.schemas) as Record<string, unknown> });
  const streams = Object.entries(doc.paths).flatMap(([template, methods]) => {
    const schema = methods.get?.responses["200"]?.content?.["text/event-stream"]?.schema as
      | { oneOf?: EventBranch[] }
      | undefined;
    if (schema === undefined) return [];
    const branches = new Map(
      (schema.oneOf ?? []).map((branch) => {
        const { contentSchema, ...dataText } = branch.properties.data;
        const envelope = { ...branch, properties: { ...branch.properties, data: dataText } };
        const validators: [ValidateFunction, ValidateFunction | undefined] = [
          ajv.compile(rewriteRefs(envelope) as Record<string, unknown>),
          contentSchema === undefined ? undefined : ajv.compile(rewriteRefs(contentSchema) as Record<string, unknown>),
        ];
        return [branch.properties.event.const, validators] as const;
      }),
    );
    return [{ template, pattern: templatePattern(template), branches }];
  });
  const describe = (where: string, validate: ValidateFunction) =>
    (validate.errors ?? []).map(
      (error) => `${where}${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`,
    );

  return (path, event) => {
    const stream = streams.find((entry) => entry.pattern.test(path));
    if (stream === undefined) return [`no event stream operation get ${path}`];
    const validators = stream.branches.get(event.event);
    if (validators === undefined) return [`event ${event.event}: not an event of get ${stream.template}`];
    const [envelope, content] = validators;
    if (!envelope({ ...event })) return describe(`event ${event.event}: `, envelope);
    let data: unknown;
    try {
      data = JSON.parse(event.data);
    } catch {
      return [`event ${event.event}: data is not JSON: ${event.data.slice(0, 200)}`];
    }
    return content === undefined || content(data) ? [] : describe(`event ${event.event}: data`, content);
  };
}
