import { describe, expect, it } from "vitest";
import { createConformance } from "./conformance.js";

const document = {
  paths: {
    "/auth": {
      post: {
        responses: {
          "200": { content: { "application/json": { schema: { type: "object", additionalProperties: false } } } },
        },
      },
    },
  },
  components: { schemas: {} },
};

describe("createConformance, a method a documented path has no operation for", () => {
  const check = createConformance(document);
  const answer = (status: number, allow?: string) => ({
    method: "GET",
    path: "/auth",
    status,
    headers: allow === undefined ? {} : { allow },
  });

  it("takes HTTP's own 405 with the path's methods in Allow", () => {
    expect(check(answer(405, "POST")).violations).toEqual([]);
  });

  it("refuses another status, or an Allow that leaves a documented method out", () => {
    expect(check(answer(404)).violations).toEqual([
      "status 404 for a method /auth has no operation for (405 expected)",
    ]);
    expect(check(answer(405, "PUT")).violations).toEqual(["405 without post in its Allow header"]);
  });

  it("takes HTTP's 404 on a path the document does not have, and names any other answer there", () => {
    expect(check({ method: "GET", path: "/nowhere", status: 404, headers: {} }).violations).toEqual([]);
    expect(check({ method: "GET", path: "/nowhere", status: 200, headers: {} }).violations).toEqual([
      "no operation get /nowhere",
    ]);
  });
});
