import { id, type RuleContext } from "./ruleContext.js";

const SECRET_NAME = /secret|passw|pepper|key|token|credential|private/i;
const PEM = /-----BEGIN [A-Z ]+-----/;

/** Why a ConfigMap value looks like it carries a secret, or undefined. */
export function secretLookingValue(value: string): string | undefined {
  if (PEM.test(value)) return "contains a PEM block";
  for (const match of value.matchAll(/[a-z][a-z0-9+.-]*:\/\/[^\s"',]+/gi)) {
    let url: URL;
    try {
      url = new URL(match[0]);
    } catch {
      continue;
    }
    if (url.password) return `has a URL with a password (${url.protocol}//…@${url.host})`;
    for (const key of url.searchParams.keys())
      if (SECRET_NAME.test(key)) return `has a URL with a secret-looking query parameter "${key}" (${url.host})`;
    // RPC providers often put the API key in the path: a long run of letters and digits.
    if (
      url.pathname
        .split("/")
        .some(
          (segment) =>
            segment.length >= 24 && /[a-z]/i.test(segment) && /[0-9]/.test(segment) && /^[A-Za-z0-9_-]+$/.test(segment),
        )
    ) {
      return `has a URL whose path looks like it embeds an API key (${url.host})`;
    }
  }
  return undefined;
}

// ---- Nothing secret in the repository.
export function checkNothingSecret(context: RuleContext): void {
  const { report, byKind } = context;
  for (const secret of byKind("Secret")) {
    if (secret.data || secret.stringData)
      report(
        "secrets",
        id(secret),
        "Secret with data: secrets are created in the cluster, never kept in the repository",
      );
  }
  for (const configMap of byKind("ConfigMap")) {
    for (const [key, value] of Object.entries({
      ...((configMap.data ?? {}) as Record<string, string>),
      ...((configMap.binaryData ?? {}) as Record<string, string>),
    })) {
      if (SECRET_NAME.test(key)) report("secrets", id(configMap), `key ${key} looks like a secret; use a Secret`);
      const why = secretLookingValue(String(value));
      if (why) report("secrets", id(configMap), `value of ${key} ${why}; use a Secret`);
      // Keys inside JSON documents (chains.json) count as names too.
      if (key.endsWith(".json")) {
        try {
          const visit = (node: unknown, path: string): void => {
            if (Array.isArray(node)) node.forEach((item, index) => visit(item, `${path}[${index}]`));
            else if (node && typeof node === "object") {
              for (const [name, child] of Object.entries(node)) {
                if (SECRET_NAME.test(name))
                  report("secrets", id(configMap), `${key} has a field ${path}.${name} that looks like a secret`);
                visit(child, `${path}.${name}`);
              }
            }
          };
          visit(JSON.parse(String(value)), "");
        } catch {
          report("references", id(configMap), `${key} is not valid JSON`);
        }
      }
    }
  }
}
