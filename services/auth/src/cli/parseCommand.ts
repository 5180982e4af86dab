import { parseArgs } from "node:util";
import { PlatformError } from "@platform/errors/base";
import { isWellFormed } from "../credentials/credentialFormat.js";
import { isReadScope, isSerializedOrigin } from "../registry/keyKinds.js";
import { isScope, SCOPES } from "../registry/scopes.js";

export type CliCommand =
  | { kind: "help" }
  | {
      kind: "keys create";
      name: string;
      scopes: string[];
      tier: string;
      /** "server" or "browser" (registry/keyKinds.ts). */
      keyKind: "server" | "browser";
      origins: string[];
      json: boolean;
    }
  | { kind: "keys list"; all: boolean; json: boolean }
  | { kind: "keys revoke"; id: string; reason: string; json: boolean }
  | { kind: "keys rotate"; id: string; json: boolean }
  | { kind: "refresh-tokens list"; keyId: string; json: boolean }
  | { kind: "refresh-tokens revoke"; keyId: string; token: string; reason: string; json: boolean }
  | { kind: "signing-keys generate"; dir: string; activeFrom: Date; json: boolean };

/** Bad command-line input: the CLI prints the message on one line and exits 2. */
export class UsageError extends PlatformError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, { code: "CLI_USAGE", retryable: false, cause: options?.cause });
  }
}

export const USAGE = `Usage: pnpm --silent cli <command>

  keys create --name NAME --scopes S1,S2 [--tier T] [--json]   create a key; prints its secret once
      [--kind browser --origin https://app.example [--origin …]]
                                                                 a browser key: a publishable pk_ secret for
                                                                 web pages, read scopes only, tier "browser",
                                                                 accepted only from the given origins
  keys list [--all] [--json]                                     list keys (--all: revoked ones too)
  keys revoke ID [--reason R] [--json]                           revoke a key; its tokens stop working
  keys rotate ID [--json]                                        replace a key's secret; prints it once
  refresh-tokens list KEY_ID [--json]                            a key's live refresh tokens (ids and hashes)
  refresh-tokens revoke KEY_ID TOKEN [--reason R] [--json]       revoke one refresh token, by its id or hash
  signing-keys generate --dir DIR [--active-from ISO] [--json]   write a new Ed25519 signing-key file

Scopes: ${SCOPES.join(", ")}. Tiers: as configured on auth (AUTH_TIERS); auth's default when --tier is left out.
Kinds: server (default; an sk_ secret: keep it on a server, never in a web page or app bundle) and
browser (a pk_ secret a page may carry; its origin binding stops other web sites, not scripts, so it
can only read and has its own smaller rate budget).
Auth's key administration is reached at AUTH_ADMIN_GRPC_TARGET (in Kubernetes: kubectl -n platform port-forward deploy/auth 50061, then 127.0.0.1:50061), else at the local stack's (STACK_STATE_DIR, default .local).`;

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses the CLI's arguments (after the script name). Throws UsageError with a one-line reason. */
export function parseCommand(argv: readonly string[], now: Date = new Date()): CliCommand {
  const [group, action, ...rest] = argv;
  if (group === undefined || group === "help" || group === "--help" || group === "-h") return { kind: "help" };
  const command = `${group} ${action ?? ""}`.trim();
  switch (command) {
    case "keys create": {
      const { values } = parse(
        rest,
        {
          name: { type: "string" },
          scopes: { type: "string" },
          tier: { type: "string" },
          kind: { type: "string" },
          origin: { type: "string", multiple: true },
          json: { type: "boolean" },
        },
        0,
      );
      const name = required(values.name, "--name");
      const scopes = parseScopes(required(values.scopes, "--scopes"));
      const tier = values.tier === undefined ? "" : nonEmpty(values.tier, "--tier");
      const { keyKind, origins } = parseKind(values.kind, values.origin ?? [], scopes);
      return { kind: "keys create", name, scopes, tier, keyKind, origins, json: values.json === true };
    }
    case "keys list": {
      const { values } = parse(rest, { all: { type: "boolean" }, json: { type: "boolean" } }, 0);
      return { kind: "keys list", all: values.all === true, json: values.json === true };
    }
    case "keys revoke": {
      const { values, positionals } = parse(rest, { reason: { type: "string" }, json: { type: "boolean" } }, 1);
      return {
        kind: "keys revoke",
        id: keyId(positionals[0]),
        reason: values.reason ?? "",
        json: values.json === true,
      };
    }
    case "keys rotate": {
      const { values, positionals } = parse(rest, { json: { type: "boolean" } }, 1);
      return { kind: "keys rotate", id: keyId(positionals[0]), json: values.json === true };
    }
    case "refresh-tokens list": {
      const { values, positionals } = parse(rest, { json: { type: "boolean" } }, 1);
      return { kind: "refresh-tokens list", keyId: keyId(positionals[0]), json: values.json === true };
    }
    case "refresh-tokens revoke": {
      const { values, positionals } = parse(rest, { reason: { type: "string" }, json: { type: "boolean" } }, 2);
      const token = (positionals[1] ?? "").toLowerCase();
      // Never the token itself (it would sit in the shell's history and in ps): its id or hash.
      if (!/^(?:[0-9a-f]{16}|[0-9a-f]{64})$/.test(token))
        throw new UsageError(
          "name the refresh token by its id (16 hex digits) or hash (64), as refresh-tokens list or auth's log show them",
        );
      return {
        kind: "refresh-tokens revoke",
        keyId: keyId(positionals[0]),
        token,
        reason: values.reason ?? "",
        json: values.json === true,
      };
    }
    case "signing-keys generate": {
      const { values } = parse(
        rest,
        { dir: { type: "string" }, "active-from": { type: "string" }, json: { type: "boolean" } },
        0,
      );
      const dir = required(values.dir, "--dir");
      const activeFromText = values["active-from"];
      if (
        activeFromText !== undefined &&
        (!RFC3339.test(activeFromText) || !Number.isFinite(Date.parse(activeFromText)))
      ) {
        throw new UsageError(
          `--active-from must be an RFC 3339 time such as 2026-01-01T00:00:00Z, got ${JSON.stringify(activeFromText)}`,
        );
      }
      return {
        kind: "signing-keys generate",
        dir,
        activeFrom: activeFromText === undefined ? now : new Date(activeFromText),
        json: values.json === true,
      };
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}; run "pnpm --silent cli help" for the commands`);
  }
}

type OptionSpec = Record<string, { type: "string" | "boolean"; multiple?: boolean }>;

function parse<T extends OptionSpec>(args: string[], options: T, positionalCount: number) {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    // node's messages are one sentence, sometimes with a hint on a second line: keep the first.
    const first = (error as Error).message.split("\n")[0] ?? "invalid arguments";
    throw new UsageError(first.replace(/\. To specify a positional argument.*$/, ""));
  }
  if (parsed.positionals.length !== positionalCount) {
    throw new UsageError(
      positionalCount === 0
        ? `unexpected argument ${JSON.stringify(parsed.positionals[0])}`
        : parsed.positionals.length === 0
          ? "the key id is missing"
          : positionalCount === 1
            ? `expected one key id, got ${parsed.positionals.length} arguments`
            : `expected a key id and a refresh token's id or hash, got ${parsed.positionals.length} arguments`,
    );
  }
  return parsed;
}

function required(value: string | undefined, option: string): string {
  if (value === undefined) throw new UsageError(`${option} is required`);
  return nonEmpty(value, option);
}

function nonEmpty(value: string, option: string): string {
  if (value.trim() === "") throw new UsageError(`${option} must not be empty`);
  return value.trim();
}

function parseScopes(text: string): string[] {
  const scopes = text
    .split(",")
    .map((scope) => scope.trim())
    .filter((scope) => scope.length > 0);
  if (scopes.length === 0) throw new UsageError(`--scopes needs at least one of ${SCOPES.join(", ")}`);
  const unknown = scopes.find((scope) => !isScope(scope));
  if (unknown !== undefined)
    throw new UsageError(`unknown scope ${JSON.stringify(unknown)}; valid scopes: ${SCOPES.join(", ")}`);
  return [...new Set(scopes)];
}

/** --kind and --origin: caught here for a one-line message, checked again by auth (registry/keyKinds.ts). */
function parseKind(
  kind: string | undefined,
  origins: string[],
  scopes: readonly string[],
): { keyKind: "server" | "browser"; origins: string[] } {
  const keyKind = kind ?? "server";
  if (keyKind !== "server" && keyKind !== "browser")
    throw new UsageError(`--kind must be server or browser, got ${JSON.stringify(keyKind)}`);
  if (keyKind === "server") {
    if (origins.length > 0) throw new UsageError("--origin is for browser keys only (--kind browser)");
    return { keyKind, origins: [] };
  }
  if (origins.length === 0) throw new UsageError("a browser key needs at least one --origin https://…");
  const bad = origins.find((origin) => !isSerializedOrigin(origin));
  if (bad !== undefined)
    throw new UsageError(
      `--origin ${JSON.stringify(bad)} is not an origin: scheme://host[:port] as a browser sends it, no path or trailing slash (https, or http for localhost)`,
    );
  const writes = scopes.filter((scope) => !isReadScope(scope));
  if (writes.length > 0) throw new UsageError(`a browser key takes read scopes only; leave out ${writes.join(", ")}`);
  return { keyKind, origins };
}

function keyId(value: string | undefined): string {
  if (value === undefined) throw new UsageError("the key id is missing");
  if (!isWellFormed("keyId", value))
    throw new UsageError(`${JSON.stringify(value)} is not an API key id (ak_ followed by 22 letters and digits)`);
  return value;
}
