import { z } from "zod";

/**
 * The named schemas of the answers (OpenAPI `components.schemas`): a route's answer schema and the
 * shapes several answers share join this registry where they are declared (`component`), and the
 * document lists each once and refers to it by `$ref` wherever it is used (openapi.ts).
 */
export const responseComponents = z.registry<{ id: string }>();

/** Declares `schema` as the named component `id`; returns it, to use in other schemas. */
export function component<S extends z.ZodType>(id: string, schema: S): S {
  responseComponents.add(schema, { id });
  return schema;
}

/** A HAL link: where the related resource is. */
export const HalLinkSchema = component(
  "HalLink",
  z
    .object({
      href: z.string().meta({ description: "Path of the related resource, query included" }),
      title: z.string().optional().meta({ description: "What the link leads to, for people" }),
    })
    .meta({ description: "A HAL link (RFC 8288 relation named by its key in `_links`)" }),
);

/** The `page` member of every collection (collection.ts `pageBody`). */
export const PageSchema = component(
  "Page",
  z
    .object({
      limit: z.number().int().nonnegative().meta({ description: "The page size this page was read with" }),
      next_cursor: z
        .string()
        .nullable()
        .meta({ description: "Opaque cursor of the next page of the same query; null on the last page" }),
      has_more: z
        .boolean()
        .meta({ description: "Whether a next page follows (then next_cursor and _links.next are set)" }),
    })
    .meta({ description: "Where a page of a collection stands" }),
);

/** An optional relation in `_links`. */
export const OptionalHalLinkSchema = HalLinkSchema.optional();
