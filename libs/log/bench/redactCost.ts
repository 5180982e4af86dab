// Development aid: the CPU cost of one log line, as the gateway's access line, under the
// redaction configurations pino offers and the one createLogger uses (redact.ts says why).
//
//   cd libs/log && npx tsx bench/redactCost.ts [lines]
import { performance } from "node:perf_hooks";
import { type LoggerOptions, pino } from "pino";
import { createLogger } from "../src/createLogger.js";
import { exactRedactPaths, SENSITIVE_KEYS } from "../src/redact.js";

const LINES = Number(process.argv[2] ?? 200_000);
let bytes = 0;
const destination = {
  write(line: string) {
    bytes += line.length;
  },
};
const wildcardPaths = SENSITIVE_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]);
const pinoWith = (options: LoggerOptions) =>
  pino({ level: "info", base: { service: "bench" }, ...options }, destination);
const variants = {
  "pino, no redaction": pinoWith({}),
  "pino redact, wildcard paths (until 27 Nov)": pinoWith({ redact: { paths: wildcardPaths, censor: "[redacted]" } }),
  "pino redact, exact paths only": pinoWith({ redact: { paths: exactRedactPaths, censor: "[redacted]" } }),
  "createLogger (exact paths + redactLine)": createLogger({ service: "bench", level: "info", destination }),
};
const accessLine = () => ({
  requestId: "3f1c2a4e-7d0b-4c1e-9a55-0d6f2b8c9e11",
  method: "GET",
  route: "/data/v1/accounts/:address/balance/latest",
  status: 200,
  ms: 1.2,
  trace_id: "4bf92f3577b34da6a3ce929d0e0e4736",
  span_id: "00f067aa0ba902b7",
});

for (let round = 1; round <= 3; round += 1) {
  for (const [name, log] of Object.entries(variants)) {
    const started = performance.now();
    for (let line = 0; line < LINES; line += 1) log.info(accessLine(), "request");
    const ns = ((performance.now() - started) * 1e6) / LINES;
    process.stdout.write(`round ${round}  ${name.padEnd(44)} ${(ns / 1_000).toFixed(2)} µs a line\n`);
  }
}
process.stdout.write(`(${(bytes / 1e6).toFixed(0)} MB written to nowhere)\n`);
