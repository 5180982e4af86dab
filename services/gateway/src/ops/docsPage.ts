/**
 * A self-contained HTML reference rendered from the OpenAPI document: no scripts, no CDN, so it
 * works offline and cannot drift from /openapi.json.
 */
export function renderDocsPage(document: Record<string, unknown>): string {
  const info = document.info as { title: string; version: string; description: string };
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const sections = Object.entries(paths)
    .flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => ({ path, method, operation })),
    )
    .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))
    .map(renderOperation)
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(info.title)} reference</title>
<style>
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.45;color:#1b1f24}
h2{border-top:1px solid #d0d7de;padding-top:1rem}code,pre{background:#f6f8fa;border-radius:4px}
pre{padding:.75rem;overflow:auto}table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left}
.method{font-weight:700;text-transform:uppercase;margin-right:.5rem}
</style></head><body>
<h1>${escapeHtml(info.title)} <small>${escapeHtml(info.version)}</small></h1>
<p>${escapeHtml(info.description)}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Errors are <code>application/problem+json</code> with a stable <code>code</code>.</p>
${sections}
</body></html>`;
}

interface Operation {
  summary: string;
  description?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required: boolean; description?: string; schema: unknown }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { description: string; content?: Record<string, { example?: unknown }> }>;
}

function renderOperation({ path, method, operation }: { path: string; method: string; operation: Operation }): string {
  const scopes = (operation.security ?? []).flatMap((entry) => Object.values(entry).flat());
  const parameters = operation.parameters ?? [];
  const rows = parameters
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${p.required ? "yes" : "no"}</td><td><code>${escapeHtml(JSON.stringify(p.schema))}</code></td><td>${escapeHtml(p.description ?? "")}</td></tr>`,
    )
    .join("");
  const body = operation.requestBody?.content["application/json"]?.schema;
  const responses = Object.entries(operation.responses)
    .map(([status, response]) => {
      const example = Object.values(response.content ?? {})[0]?.example;
      return `<li><strong>${status}</strong> ${escapeHtml(response.description)}${example === undefined ? "" : `<pre>${escapeHtml(JSON.stringify(example, null, 2))}</pre>`}</li>`;
    })
    .join("");
  return `<h2><span class="method">${method}</span><code>${escapeHtml(path)}</code></h2>
<p>${escapeHtml(operation.summary)}</p>${operation.description ? `<p>${escapeHtml(operation.description)}</p>` : ""}
<p>${scopes.length > 0 ? `Bearer token with scope <code>${scopes.map(escape).join(", ")}</code>.` : "Public."}</p>
${rows ? `<table><tr><th>Parameter</th><th>In</th><th>Required</th><th>Schema</th><th>Description</th></tr>${rows}</table>` : ""}
${body === undefined ? "" : `<p>Request body (JSON):</p><pre>${escapeHtml(JSON.stringify(body, null, 2))}</pre>`}
<ul>${responses}</ul>`;
}

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}
