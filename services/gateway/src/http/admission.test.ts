import { AppError, invalidArgument, notFound } from "@platform/errors";
import type { AnyRoute } from "@platform/http";
import type { IntentsServiceClient } from "@platform/proto/intents/v1/intents";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { postPreflightRoute } from "../routes/intents/postPreflight.js";
import { postQuoteRoute } from "../routes/intents/postQuote.js";
import { validateAll, withMistakeList } from "./admission.js";

// Validation never calls the backend.
const noBackend = {} as IntentsServiceClient;

function refusal(route: AnyRoute, raw: { params?: unknown; query?: unknown; body?: unknown }): AppError {
  try {
    validateAll(route, { params: raw.params ?? {}, query: raw.query ?? {}, body: raw.body });
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("validating a route's inputs", () => {
  it("lists every missing field of a quote body at once, keeping the first one's detail", () => {
    const error = refusal(postQuoteRoute(noBackend), { body: { amount: "12x" } });
    expect(error.code).toBe("INVALID_REQUEST");
    expect(error.detail).toMatch(/^body field 'originChainId' is required \(and 4 more: see errors\)$/);
    expect(error.extras["parameter"]).toBe("originChainId");
    expect((error.extras["errors"] as Array<{ pointer: string }>).map((item) => item.pointer)).toEqual([
      "/originChainId",
      "/destinationChainId",
      "/inputToken",
      "/outputToken",
      "/amount",
    ]);
  });

  it("points into nested body members", () => {
    const error = refusal(postPreflightRoute(noBackend), {
      body: { userAddress: "0x12", order: { fillDeadline: -1 } },
    });
    const pointers = (error.extras["errors"] as Array<{ pointer: string }>).map((item) => item.pointer);
    expect(pointers[0]).toBe("/userAddress");
    expect(pointers.some((pointer) => pointer.startsWith("/order/"))).toBe(true);
  });

  it("refuses query parameters on a route that takes none, with the body's mistakes in the same answer", () => {
    const error = refusal(postQuoteRoute(noBackend), { query: { debug: "1" }, body: {} });
    expect(error.code).toBe("UNKNOWN_PARAMETER");
    expect(error.detail).toMatch(/^unknown query parameter 'debug': this operation takes no query parameters/);
    const errors = error.extras["errors"] as Array<{ pointer: string; detail: string }>;
    expect(errors[0]).toEqual({ pointer: "/query/debug", detail: expect.stringContaining("'debug'") });
    expect(errors).toHaveLength(6);
  });
});

describe("a service's refusal of one input", () => {
  const getRoute = {
    method: "get",
    params: z.object({ address: z.string() }),
    query: z.object({ cursor: z.string() }),
  };
  const postRoute = { method: "post", body: z.object({ order: z.object({ fillDeadline: z.number() }) }) };
  const listed = (route: object, parameter: string) =>
    (withMistakeList(invalidArgument("INVALID_CURSOR", "not a cursor", { parameter }), route as AnyRoute) as AppError)
      .extras["errors"];

  it("gets the errors list too, pointing at the query, the path or the body", () => {
    expect(listed(getRoute, "cursor")).toEqual([{ pointer: "/query/cursor", detail: "not a cursor" }]);
    expect(listed(getRoute, "address")).toEqual([{ pointer: "/path/address", detail: "not a cursor" }]);
    expect(listed(postRoute, "order.fillDeadline")).toEqual([
      { pointer: "/order/fillDeadline", detail: "not a cursor" },
    ]);
  });

  it("leaves a header, another status, and a list already made alone", () => {
    expect(listed(getRoute, "Last-Event-ID")).toBeUndefined();
    const notFoundError = notFound("NETUID_NOT_FOUND", "no subnet", { parameter: "netuid" });
    expect(withMistakeList(notFoundError, getRoute as unknown as AnyRoute)).toBe(notFoundError);
    expect(notFoundError.extras["errors"]).toBeUndefined();
  });
});
