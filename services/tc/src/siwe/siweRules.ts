import { ConfigError } from "@platform/config";
import type { TcDocument, TcVersions } from "../tcVersions.js";
import { isSiweStatement } from "./siweSyntax.js";

/** What an acceptable message must carry, all of it from configuration (never from a request). */
export interface SiweRules {
  domain: string;
  uri: string;
  /** The only scheme a message may name; undefined: a message must name none. */
  scheme: string | undefined;
  /** The exact statement, placeholders filled in for the current version. */
  statement: string;
  chainIds: readonly number[];
  currentTcVersion: number;
  /** The one resource a message must list: `coin-tc:v<currentTcVersion>`. */
  resource: string;
  /** The current version's document, when TC_VERSIONS_FILE describes it. */
  document: TcDocument | undefined;
  nonceTtlSeconds: number;
}

/**
 * The variables the rules come from (a part of TcConfig), named here so that siwe/ stays below the
 * configuration module, which uses its syntax checks.
 */
export interface SiweSettings {
  TC_CURRENT_VERSION: number;
  TC_VERSIONS_FILE?: string | undefined;
  SIWE_DOMAIN: string;
  SIWE_URI: string;
  SIWE_SCHEME?: string | undefined;
  SIWE_STATEMENT: string;
  SIWE_CHAIN_IDS: readonly number[];
  NONCE_TTL_SECONDS: number;
}

/** The SIWE resource naming T&C version N. */
export const resourceOf = (version: number): string => `coin-tc:v${version}`;

/** Parses a resource naming a T&C version; undefined for anything else. */
export function versionOfResource(resource: string): number | undefined {
  const match = /^coin-tc:v([1-9][0-9]{0,8})$/.exec(resource);
  return match ? Number(match[1]) : undefined;
}

const PLACEHOLDER = /\{(version|documentUrl|documentSha256)\}/g;

/**
 * The rules for this configuration. Throws a ConfigError naming the variable at fault: a chain id
 * without a configured chain (there would be no RPC to check a contract wallet on), a statement
 * needing a document the versions file lacks, or a statement EIP-4361 does not allow.
 */
export function siweRules(
  config: SiweSettings,
  versions: TcVersions,
  configuredChainIds: readonly number[],
): SiweRules {
  const current = config.TC_CURRENT_VERSION;
  if (config.TC_VERSIONS_FILE !== undefined && !versions.has(current)) {
    throw new ConfigError(
      "TC_VERSIONS_FILE",
      `${config.TC_VERSIONS_FILE} does not describe TC_CURRENT_VERSION ${current}`,
    );
  }
  const missing = config.SIWE_CHAIN_IDS.filter((chainId) => !configuredChainIds.includes(chainId));
  if (missing.length > 0) {
    throw new ConfigError(
      "SIWE_CHAIN_IDS",
      `chain id(s) ${missing.join(", ")} are not chains of CHAINS_FILE (${configuredChainIds.join(", ")})`,
    );
  }
  const document = versions.get(current);
  const statement = config.SIWE_STATEMENT.replace(PLACEHOLDER, (_, name: string) => {
    if (name === "version") return String(current);
    if (document === undefined)
      throw new ConfigError(
        "SIWE_STATEMENT",
        `uses {${name}} but TC_VERSIONS_FILE does not describe version ${current}`,
      );
    return name === "documentUrl" ? document.documentUrl : document.documentSha256;
  });
  if (statement.trim() === "" || !isSiweStatement(statement)) {
    throw new ConfigError(
      "SIWE_STATEMENT",
      "must be one line of the characters EIP-4361 allows (letters, digits, spaces and -._~:/?#[]@!$&'()*+,;=)",
    );
  }
  return {
    domain: config.SIWE_DOMAIN,
    uri: config.SIWE_URI,
    scheme: config.SIWE_SCHEME,
    statement,
    chainIds: config.SIWE_CHAIN_IDS,
    currentTcVersion: current,
    resource: resourceOf(current),
    document,
    nonceTtlSeconds: config.NONCE_TTL_SECONDS,
  };
}
