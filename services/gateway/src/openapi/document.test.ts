import { createConformance } from "@platform/http/conformance";
import { createEventConformance } from "@platform/http/eventConformance";
import { describe, expect, it } from "vitest";
import { defaultGatewayDocument } from "./document.js";

type Media = { schema?: unknown; example?: unknown };
type Operation = { operationId: string; responses: Record<string, { content?: Record<string, Media> }> };

const document = defaultGatewayDocument() as { paths: Record<string, Record<string, Operation>> };
const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
);

describe("the gateway's OpenAPI document", () => {
  it("lists ORIGIN_NOT_ALLOWED among the codes, apart from FORBIDDEN, and states the error rules", () => {
    const full = document as unknown as {
      info: { description: string };
      components: { schemas: { Problem: { properties: { code: { enum: string[] } } } } };
    };
    expect(full.components.schemas.Problem.properties.code.enum).toEqual(
      expect.arrayContaining(["ORIGIN_NOT_ALLOWED", "FORBIDDEN", "UNKNOWN_PARAMETER"]),
    );
    expect(full.info.description).toContain("400 UNKNOWN_PARAMETER");
    expect(full.info.description).toContain("camelCase");
  });

  it("documents 400 UNKNOWN_PARAMETER on every operation, its query parameters being the complete list", () => {
    const undocumented = operations
      .filter(
        ({ operation }) =>
          !(operation.responses["400"] as { description?: string })?.description?.includes("UNKNOWN_PARAMETER"),
      )
      .map(({ operation }) => operation.operationId);
    expect(undocumented).toEqual([]);
  });

  it("gives every operation's success answer a body schema", () => {
    const undeclared = operations
      .filter(({ operation }) => {
        const [status, success] = Object.entries(operation.responses).find(([code]) => code.startsWith("2"))!;
        return status === undefined || Object.values(success.content ?? {}).some((media) => media.schema === undefined);
      })
      .map(({ operation }) => operation.operationId);
    expect(undeclared).toEqual([]);
    expect(operations.length).toBeGreaterThanOrEqual(25);
  });

  it("holds every example, which the routes' renders made, against its answer's schema", () => {
    const check = createConformance(document);
    const refused: string[] = [];
    for (const { path, method, operation } of operations)
      for (const [status, response] of Object.entries(operation.responses))
        for (const [contentType, media] of Object.entries(response.content ?? {})) {
          if (media.example === undefined || contentType === "text/event-stream") continue;
          const { violations } = check({
            method,
            path: path.replace(/\{[^}]+\}/g, "x"),
            status: Number(status),
            headers: { "content-type": contentType },
            body: media.example,
          });
          for (const violation of violations.filter((text) => text.startsWith("body")))
            refused.push(`${operation.operationId} ${status}: ${violation}`);
        }
    expect(refused).toEqual([]);
  });

  it("declares each event stream's events, and holds its example's events against them", () => {
    const checkEvent = createEventConformance(document);
    const streams = operations.filter(({ operation }) => operation.responses["200"]?.content?.["text/event-stream"]);
    expect(streams.map(({ path }) => path).sort()).toEqual(["/data/v1/events", "/intents/v1/events"]);
    for (const { path, operation } of streams) {
      const media = operation.responses["200"]!.content!["text/event-stream"]!;
      expect((media.schema as { oneOf?: unknown[] }).oneOf?.length).toBeGreaterThanOrEqual(7);
      const events = (media.example as string)
        .split("\n\n")
        .filter((block) => block !== "")
        .map((block) => {
          const field = (name: string) => new RegExp(`^${name}: (.*)$`, "m").exec(block)?.[1];
          return { event: field("event")!, id: field("id")!, data: field("data")! };
        });
      expect(events.map((event) => event.event)).toEqual(["live", path === "/data/v1/events" ? "head" : "status"]);
      expect(events.flatMap((event) => checkEvent(path, event))).toEqual([]);
    }
  });
});
