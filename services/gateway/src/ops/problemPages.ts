import { problemSlug, sendJsonText, sendProblem } from "@platform/http";
import type { Request, Response } from "express";
import { PROBLEM_TITLES } from "../http/problemTitles.js";
import { appendVary } from "../http/vary.js";
import { escapeHtml } from "./docsPage.js";
import { PROBLEM_CATALOG, type ProblemDescription } from "./problemCatalog.js";

/** A problem type as its page describes it. */
export interface ProblemType extends ProblemDescription {
  /** The `type` member of the problems of this code. */
  type: string;
  code: string;
  title: string;
}

/** The pages change only with a release: shared caches may keep them an hour. */
const CACHE_CONTROL = "public, max-age=3600";
/** The pages run nothing and load nothing; their only style is inline. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
const STYLE =
  "body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1b1f24}" +
  "code{background:#f6f8fa;border-radius:4px;padding:0 .2em}dt{font-weight:600;margin-top:1rem}";

/**
 * The pages the problems' `type` URLs (`<PUBLIC_BASE_URL>/problems/<slug>`) answer: what a code
 * means, with which statuses, when it happens and what to do; HTML for a person, JSON when asked
 * for with `Accept: application/json`. `/problems` lists them all. An unknown slug is a 404 problem.
 */
export function problemPages(publicBaseUrl: string): {
  list(request: Request, response: Response): void;
  page(request: Request, response: Response): void;
} {
  const types = problemTypes(publicBaseUrl);
  const bySlug = new Map(types.map((type) => [problemSlug(type.code), type]));
  return {
    list(request, response) {
      answer(
        request,
        response,
        () => ({ problems: types }),
        () => renderList(types),
      );
    },
    page(request, response) {
      const slug = String(request.params.slug);
      const type = bySlug.get(slug);
      if (type === undefined) {
        sendProblem(
          response,
          {
            status: 404,
            code: "NOT_FOUND",
            title: PROBLEM_TITLES.NOT_FOUND!,
            detail: `no problem type ${slug}; /problems lists them`,
            instance: request.path,
          },
          publicBaseUrl,
        );
        return;
      }
      answer(
        request,
        response,
        () => type,
        () => renderPage(type),
      );
    },
  };
}

/** Every code of the catalog with its title and type URL, in the order of http/problemTitles.ts. */
export function problemTypes(publicBaseUrl: string): ProblemType[] {
  return Object.entries(PROBLEM_CATALOG).map(([code, description]) => ({
    type: `${publicBaseUrl}/problems/${problemSlug(code)}`,
    code,
    title: PROBLEM_TITLES[code] ?? code,
    ...description,
  }));
}

function answer(request: Request, response: Response, json: () => unknown, html: () => string): void {
  response.setHeader("cache-control", CACHE_CONTROL);
  appendVary(response, "Accept");
  if (request.accepts(["text/html", "application/json"]) === "application/json") {
    sendJsonText(response, 200, "application/json", JSON.stringify(json()));
    return;
  }
  response.setHeader("content-security-policy", CONTENT_SECURITY_POLICY);
  response.type("text/html").send(html());
}

function renderPage(type: ProblemType): string {
  return page(
    `${type.title} (${type.code})`,
    `<p><a href="/problems">All problem types</a> · <a href="/docs">API reference</a></p>
<h1>${escapeHtml(type.title)}</h1>
<dl>
<dt>Code</dt><dd><code>${escapeHtml(type.code)}</code></dd>
<dt>Type</dt><dd><code>${escapeHtml(type.type)}</code></dd>
<dt>Status</dt><dd>${type.statuses.join(", ")}</dd>
<dt>When</dt><dd>${prose(type.when)}</dd>
<dt>What to do</dt><dd>${prose(type.action)}</dd>
</dl>
<p>Problems are <code>application/problem+json</code> (RFC 9457): <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code> (this occurrence), <code>code</code>, and the extension members the code names.</p>`,
  );
}

function renderList(types: readonly ProblemType[]): string {
  const rows = types
    .map(
      (type) =>
        `<li><a href="/problems/${problemSlug(type.code)}"><code>${escapeHtml(type.code)}</code></a> ${type.statuses.join(", ")}: ${escapeHtml(type.title)}</li>`,
    )
    .join("\n");
  return page(
    "Problem types",
    `<p><a href="/docs">API reference</a></p>\n<h1>Problem types</h1>\n<ul>\n${rows}\n</ul>`,
  );
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>
${body}
</body></html>`;
}

/** Escaped text with its `code spans` as <code>. */
function prose(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>");
}
