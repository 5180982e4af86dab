/**
 * The /docs page: a shell that loads the OpenAPI renderer and the script mounting it on
 * /openapi.json, both from the gateway (ops/docsAssets.ts). Without scripts it still lists every
 * operation, and names the document.
 */
export function renderDocsPage(document: Record<string, unknown>, scripts: readonly string[]): string {
  const info = document.info as { title: string; version: string };
  const paths = (document.paths ?? {}) as Record<string, Record<string, { summary?: string }>>;
  const operations = Object.entries(paths)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(
        ([method, operation]) =>
          `<li><code>${method.toUpperCase()} ${escapeHtml(path)}</code> ${escapeHtml(operation.summary ?? "")}</li>`,
      ),
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)} ${escapeHtml(info.version)}: API reference</title>
<link rel="icon" href="data:,"></head><body>
<noscript><h1>${escapeHtml(info.title)} ${escapeHtml(info.version)}</h1>
<p>The interactive reference needs JavaScript. The OpenAPI 3.1 document is at <a href="/openapi.json">/openapi.json</a>; each problem type at <a href="/problems">/problems</a>.</p>
<ul>
${operations}
</ul></noscript>
<div id="reference"></div>
${scripts.map((src) => `<script src="${escapeHtml(src)}"></script>`).join("\n")}
</body></html>`;
}

/**
 * What the page may load: scripts only from the gateway, calls ("try it") only to the gateway and
 * the public base URL the document names as its server. Styles may be inline because the renderer
 * injects its own; nothing may frame the page (the reference holds a token the user typed).
 */
export function docsContentSecurityPolicy(publicBaseUrl: string): string {
  const apiOrigin = new URL(publicBaseUrl).origin;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${apiOrigin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}
