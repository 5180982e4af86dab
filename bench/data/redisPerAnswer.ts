/**
 * What one Data API answer costs Redis, for the capacity table (docs/capacity.md): against a
 * running local stack (`deploy/local/stack up`, read from .local/stack.json), two loads of 10 s at
 * 32 connections with an unlimited key:
 *   - kept: one hot URL (network/stats/latest), which the gateway answers from memory between
 *     blocks: what every answer costs (the rate limiter's budget script, the key checks);
 *   - missed: balance/latest of an account never asked before, each request another, so each one
 *     is a data-query call reading the read models.
 * For each: answers per second, p99, data-query calls, and Redis commands and Redis execution time
 * (INFO commandstats) per answer, the background (projector commits, feeds, probes) included.
 *
 *   deploy/local/stack up && (cd bench && pnpm redis-per-answer)
 *
 * A redis-benchmark of the same machine gives the per-node ceiling the table scales by.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { authCli, redisAdminUrl, repoRoot, type StackDescriptor, testRuntime } from "@platform/local-stack";
import { ss58Encode } from "@platform/subtensor";
import autocannon from "autocannon";
import { table } from "../src/load.js";

const descriptor = JSON.parse(readFileSync(join(repoRoot, ".local", "stack.json"), "utf8")) as StackDescriptor;
const gateway = descriptor.gatewayUrl;
const redisUrl = redisAdminUrl(descriptor);
const auth = descriptor.processes.find((entry) => entry.name === "auth")!;
const dataQuery = descriptor.processes.find((entry) => entry.name === "data-query")!;

const key = JSON.parse(
  await authCli(
    testRuntime(),
    ["keys", "create", "--name", "bench-redis-per-answer", "--scopes", "data:read", "--tier", "unlimited", "--json"],
    { AUTH_ADMIN_GRPC_TARGET: auth.adminGrpcTarget! },
  ),
) as { id: string; secret: string };
const issued = await fetch(`${gateway}/auth`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
});
const token = ((await issued.json()) as { access_token: string }).access_token;

/** Calls and microseconds of every command Redis ran so far. */
function commandStats(): { calls: number; usec: number } {
  const text = execFileSync("redis-cli", ["-u", redisUrl, "--no-auth-warning", "INFO", "commandstats"], {
    encoding: "utf8",
  });
  let calls = 0;
  let usec = 0;
  for (const match of text.matchAll(/^cmdstat_[^:]+:calls=(\d+),usec=(\d+)/gm)) {
    calls += Number(match[1]);
    usec += Number(match[2]);
  }
  return { calls, usec };
}

async function dataQueryCalls(): Promise<number> {
  const text = await (await fetch(`${dataQuery.opsUrl!}/metrics`)).text();
  let total = 0;
  for (const line of text.split("\n"))
    if (line.startsWith("grpc_server_handled_total{")) total += Number(line.slice(line.lastIndexOf(" ") + 1));
  return total;
}

async function measure(name: string, path: () => string): Promise<Record<string, string | number>> {
  const before = commandStats();
  const callsBefore = await dataQueryCalls();
  const started = Date.now();
  const result = await autocannon({
    url: gateway,
    connections: 32,
    duration: 10,
    headers: { authorization: `Bearer ${token}` },
    requests: [{ method: "GET", setupRequest: (request) => ({ ...request, path: path() }) }],
  });
  const seconds = (Date.now() - started) / 1_000;
  const after = commandStats();
  const calls = (await dataQueryCalls()) - callsBefore;
  const answers = result.requests.total;
  return {
    load: name,
    "answers/s": Math.round(answers / seconds),
    "non-2xx": result.non2xx,
    "p99 ms": result.latency.p99,
    "data-query calls per answer": (calls / answers).toFixed(3),
    "Redis commands per answer": ((after.calls - before.calls) / answers).toFixed(2),
    "Redis µs per answer": ((after.usec - before.usec) / answers).toFixed(1),
  };
}

const accounts = Array.from({ length: 100_000 }, () => ss58Encode(randomBytes(32)));
let next = 0;
const rows = [
  await measure("kept: network/stats/latest", () => "/data/v1/network/stats/latest"),
  await measure("missed: balance/latest of a new account", () => {
    next += 1;
    return `/data/v1/accounts/${accounts[next % accounts.length]}/balance/latest`;
  }),
];
console.log(table(rows));
