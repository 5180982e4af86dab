import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "@platform/local-stack";

/*
 * The schema-driven fuzz of /openapi.json: schemathesis (PyPI, in the virtual environment
 * deploy/local/install-deps.sh makes) with every check, a fixed seed, the hooks of test/e2e/fuzz,
 * against a running stack, authenticated. Ids a random draw would never hit (an order, a subnet,
 * the transaction that opened the order) are given as the values of those parameters.
 */

const FUZZ_DIR = join(repoRoot, "test/e2e/fuzz");

/** The virtual environment install-deps.sh made for test/e2e/fuzz/requirements.txt. */
export function fuzzVenv(): string {
  const cache = process.env.PLATFORM_CACHE_DIR ?? join(homedir(), ".cache/chain-intents-platform");
  const digest = createHash("sha256")
    .update(readFileSync(join(FUZZ_DIR, "requirements.txt")))
    .digest("hex")
    .slice(0, 12);
  const venv = join(cache, `fuzz-venv-${digest}`);
  if (!existsSync(join(venv, "bin/schemathesis")))
    throw new Error(`no schemathesis in ${venv}: run deploy/local/install-deps.sh`);
  return venv;
}

/**
 * Schemathesis's checks of the answers alone: each answer's status is documented, its content type
 * is the documented one, its headers are the documented ones (required present, values of their
 * schema), and its body is valid against its schema (which allows no undocumented member). `all`,
 * the default, runs these too, with the checks of what the server accepts and refuses.
 */
export const RESPONSE_CHECKS = [
  "not_a_server_error",
  "status_code_conformance",
  "content_type_conformance",
  "response_headers_conformance",
  "response_schema_conformance",
] as const;

/** Operations the fuzz leaves out: the server-sent event streams. */
export const STREAM_PATHS = /\/events$/;

export interface FuzzTarget {
  gatewayUrl: string;
  /**
   * Of a key of the `unlimited` tier: a fuzz is a burst, and on a smaller tier half its requests
   * would be 429 (schemathesis's `--rate-limit auto` would instead spend minutes waiting).
   */
  accessToken: string;
  /** Values for parameters that name something that must exist, by `location.name`. */
  parameters: Record<string, string | number>;
  seed: number;
  maxExamples: number;
  /** Where the config and the JUnit report go. */
  workDir: string;
  /** The checks to run: every one by default (which includes RESPONSE_CHECKS). */
  checks?: readonly string[];
}

export interface FuzzRun {
  exitCode: number | null;
  output: string;
  /** From the JUnit report: one test case per operation and phase. */
  testCases: number;
  failures: number;
  errors: number;
}

function tomlValue(value: string | number): string {
  return typeof value === "number" ? String(value) : JSON.stringify(value);
}

export async function runSchemathesis(target: FuzzTarget): Promise<FuzzRun> {
  const config = join(target.workDir, "schemathesis.toml");
  writeFileSync(
    config,
    [
      `[parameters]`,
      ...Object.entries(target.parameters).map(([name, value]) => `${JSON.stringify(name)} = ${tomlValue(value)}`),
      "",
    ].join("\n"),
  );
  const junit = join(target.workDir, "junit.xml");
  const args = [
    "--no-color",
    "--config-file",
    config,
    "run",
    `${target.gatewayUrl}/openapi.json`,
    "--url",
    target.gatewayUrl,
    "--checks",
    target.checks === undefined ? "all" : target.checks.join(","),
    "--seed",
    String(target.seed),
    "--max-examples",
    String(target.maxExamples),
    // The event streams answer text/event-stream that never ends: every example would run into the
    // request timeout. Their inputs and answers are tested by the stream tests instead.
    "--exclude-path-regex",
    STREAM_PATHS.source,
    // One worker: schemathesis 4.32's coverage phase raised an internal KeyError with four.
    "--workers",
    "1",
    "--request-timeout",
    "15",
    "--report",
    "junit",
    "--report-junit-path",
    junit,
    "--header",
    `Authorization: Bearer ${target.accessToken}`,
  ];
  const child = spawn(join(fuzzVenv(), "bin/schemathesis"), args, {
    cwd: target.workDir,
    env: { ...process.env, SCHEMATHESIS_HOOKS: "hooks", PYTHONPATH: FUZZ_DIR, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exitCode = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const report = existsSync(junit) ? readFileSync(junit, "utf8") : "";
  const count = (name: string) =>
    Number(new RegExp(`<testsuite[^>]* ${name}="(\\d+)"`).exec(report)?.[1] ?? Number.NaN);
  return { exitCode, output, testCases: count("tests"), failures: count("failures"), errors: count("errors") };
}
