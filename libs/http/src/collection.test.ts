import { describe, expect, it } from "vitest";
import { halCollection, pageBody } from "./collection.js";

describe("halCollection", () => {
  it("links this page and the next one with the same query", () => {
    const body = halCollection({
      path: "/data/v1/things",
      query: { netuid: "1,2", limit: 2, start: undefined },
      cursor: "abc",
      page: { limit: 2, nextCursor: "def", hasMore: true },
      items: [{ id: 1 }, { id: 2 }],
      links: { latest: { href: "/data/v1/things/latest" } },
      state: { as_of: null },
    });
    expect(body).toEqual({
      _links: {
        self: { href: "/data/v1/things?netuid=1%2C2&limit=2&cursor=abc" },
        next: { href: "/data/v1/things?netuid=1%2C2&limit=2&cursor=def" },
        latest: { href: "/data/v1/things/latest" },
      },
      as_of: null,
      page: { limit: 2, next_cursor: "def", has_more: true },
      _embedded: { items: [{ id: 1 }, { id: 2 }] },
    });
  });

  it("has no next link and a null cursor on the last page", () => {
    const body = halCollection({
      path: "/x",
      query: {},
      cursor: "",
      page: { limit: 5, hasMore: false, nextCursor: "stale" },
      items: [],
    });
    expect(body._links).toEqual({ self: { href: "/x" } });
    expect(body.page).toEqual({ limit: 5, next_cursor: null, has_more: false });
    expect(pageBody({ limit: 1, hasMore: true })).toEqual({ limit: 1, next_cursor: null, has_more: true });
  });
});
