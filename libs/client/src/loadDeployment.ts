import { ClientError } from "./clientError.js";
import { parseDeployment } from "./deployments.js";
import type { Deployment } from "./deploymentsSchema.js";

/** Deployment data that was not fetched as asked: over plain HTTP off this machine, or not the pinned bytes. */
export class DeploymentSourceError extends ClientError {
  constructor(
    readonly code: "INSECURE_DEPLOYMENT_URL" | "DEPLOYMENT_DIGEST_MISMATCH" | "DEPLOYMENT_FETCH_FAILED",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "DeploymentSourceError";
  }
}

export interface LoadDeploymentOptions {
  fetch?: (input: string | URL) => Promise<Response>;
  /**
   * The SHA-256 of the file's bytes (hex, optionally `sha256:`-prefixed), as its publisher
   * announces it: the addresses the calls go to are then exactly those, whoever serves the file.
   */
  sha256?: string;
}

/**
 * Fetches and checks a deployment file, e.g. one an operator publishes for an environment this
 * package does not know. The file names the contracts your wallet will approve and call, so it
 * is fetched over `https:` only (plain `http:` only from this machine's loopback, for a local
 * stack), and, when `sha256` is given, only bytes with that digest are accepted. Throws
 * DeploymentSourceError, or DeploymentDataError for a file that is not valid deployment data.
 * Its messages name the URL without any user name or password it carries.
 */
export async function loadDeployment(url: string | URL, options: LoadDeploymentOptions = {}): Promise<Deployment> {
  const target = new URL(String(url));
  const shown = withoutCredentials(target);
  if (!(target.protocol === "https:" || (target.protocol === "http:" && isLoopback(target.hostname))))
    throw new DeploymentSourceError(
      "INSECURE_DEPLOYMENT_URL",
      `deployment data must be fetched over https: (http: only from loopback), not ${target.protocol}//${target.host}`,
    );
  let response: Response;
  try {
    response = await (options.fetch ?? globalThis.fetch)(target);
  } catch (cause) {
    throw new DeploymentSourceError("DEPLOYMENT_FETCH_FAILED", `deployment data at ${shown}: the fetch failed`, {
      cause,
    });
  }
  if (!response.ok)
    throw new DeploymentSourceError("DEPLOYMENT_FETCH_FAILED", `deployment data at ${shown}: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (options.sha256 !== undefined) {
    const expected = options.sha256.toLowerCase().replace(/^sha256:/, "");
    const actual = await sha256Hex(bytes);
    if (actual !== expected)
      throw new DeploymentSourceError(
        "DEPLOYMENT_DIGEST_MISMATCH",
        `deployment data at ${shown} has SHA-256 ${actual}, not the pinned ${expected}`,
      );
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new DeploymentSourceError("DEPLOYMENT_FETCH_FAILED", `deployment data at ${shown} is not JSON`);
  }
  return parseDeployment(json);
}

/** The URL to show in a message: any user name and password it carries left out. */
function withoutCredentials(url: URL): string {
  const shown = new URL(url.href);
  shown.username = "";
  shown.password = "";
  return shown.href;
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127(?:\.\d{1,3}){3}$/.test(host);
}

// WebCrypto: in browsers and in Node.js 20 alike.
async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
