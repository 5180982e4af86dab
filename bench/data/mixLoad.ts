// Drives one side of bench/data's mix (mixRun.ts) with autocannon: closed-loop connections that take
// the next request of the shared sequence (mix.ts) each time one answers, so at any connection count
// the requests leave in the sequence's order. A run sends either exactly the sequence's first
// `requests` or as many as `durationMs` allows (then the faster side reaches further into the
// sequence, where more URLs are new to it). A conditional request carries the ETag of the latest
// answer this side gave for its URL in this run (none yet, as when the earlier request is still in
// flight: it goes without, and is counted).
import { appendFileSync } from "node:fs";
import autocannon from "autocannon";
import type { Mix } from "./mix.js";

export interface MixLoadResult {
  /**
   * Answers over the run's wall time, from autocannon's start to the last answer (autocannon itself
   * notices the end of a fixed amount only at its next 1-second tick).
   */
  requestsPerSecond: number;
  elapsedSeconds: number;
  /** Over every answer, from the request's setup just before it is written to its last byte (µs resolution). */
  p50Ms: number;
  p99Ms: number;
  /** The same over 200 answers alone and over 304 answers alone. */
  okP99Ms: number;
  notModifiedP50Ms: number;
  notModifiedP99Ms: number;
  /** autocannon's own percentiles (whole milliseconds), for comparison with the single-URL bench. */
  autocannonP50Ms: number;
  autocannonP99Ms: number;
  /** Answers counted by autocannon. */
  total: number;
  /** Requests taken from the sequence. */
  sent: number;
  ok: number;
  notModified: number;
  /** Answers other than 200 and 304, and transport errors and timeouts. */
  failures: number;
  /** Requests the sequence marks conditional, and those of them sent without a tag (none known yet). */
  conditional: number;
  conditionalWithoutTag: number;
  /** Answers by status. */
  statuses: Record<string, number>;
  /**
   * 200 answers whose `as_of` block is older than one this side had already answered for the same
   * URL before the request left (answers to requests in flight together may come in any order):
   * none, unless the chain reorganised. Each as `url: newest seen -> this one`, the first ten.
   */
  asOfBack: { count: number; examples: string[] };
  /**
   * With `changedAt`: the answers whose request was in flight within CHANGE_WINDOW_MS after a read
   * model changed (a block's or a price round's commits, which drop the gateway's kept answers), and
   * the rest. Their share of the answers and their latencies.
   */
  afterChange?: { share: number; p50Ms: number; p99Ms: number };
  quiet?: { p50Ms: number; p99Ms: number };
}

/** How long after a read model's change a request counts as meeting it. */
export const CHANGE_WINDOW_MS = 1_000;

/**
 * Diagnostics: BENCH_MIX_TRACE=<file> appends each run's requests (start ms, latency ms, url index,
 * status, and with `changedAt` 1 when the request met a change, else 0); traceSummary.ts reads it.
 */
const TRACE = process.env.BENCH_MIX_TRACE;

interface Context {
  url?: number;
  startedAt?: number;
}

/** The `fraction` quantile of `values` (nearest rank); NaN when there are none. */
export function quantile(values: number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

/** How much of the mix a run sends: a number of requests, or requests for a time. */
export type MixAmount = { requests: number } | { durationMs: number };

/**
 * Sends the mix from its `from`th request (its first by default) to `baseUrl` at `connections`, for
 * `requests` or `durationMs`; the sequence starts over at its end.
 */
export async function loadMix(
  options: {
    baseUrl: string;
    headers?: Record<string, string>;
    mix: Mix;
    connections: number;
    from?: number;
    /** `performance.now()` of the newest read-model change (changeMarks.ts): splits the latencies by it. */
    changedAt?: () => number | undefined;
    /** Names the side in BENCH_MIX_TRACE's records. */
    label?: string;
  } & MixAmount,
): Promise<MixLoadResult> {
  const { mix } = options;
  const tags: Array<string | undefined> = new Array(mix.urls.length);
  const statuses: Record<string, number> = {};
  let next = options.from ?? 0;
  let conditional = 0;
  let conditionalWithoutTag = 0;
  const okLatencies: number[] = [];
  const notModifiedLatencies: number[] = [];
  const otherLatencies: number[] = [];
  const afterChangeLatencies: number[] = [];
  const quietLatencies: number[] = [];
  const trace: Array<[number, number, number, number] | [number, number, number, number, number]> = [];
  const asOf = asOfWatch(mix.urls);
  const started = performance.now();
  let lastAnswerAt = started;
  const result = await autocannon({
    url: options.baseUrl,
    connections: options.connections,
    ...("requests" in options ? { amount: options.requests } : { duration: options.durationMs / 1_000 }),
    ...(options.headers ? { headers: options.headers } : {}),
    requests: [
      {
        method: "GET",
        // The builder hands over a fresh copy of the request and its headers each time.
        setupRequest(request, context: Context) {
          const at = next % mix.sequence.length;
          next += 1;
          const url = mix.sequence[at]!;
          context.url = url;
          context.startedAt = performance.now();
          request.path = mix.urls[url]!;
          if (mix.conditional[at] === 1) {
            conditional += 1;
            const tag = tags[url];
            if (tag === undefined) conditionalWithoutTag += 1;
            else request.headers = { ...request.headers, "if-none-match": tag };
          }
          return request;
        },
        onResponse(status, _body, context: Context, headers) {
          statuses[status] = (statuses[status] ?? 0) + 1;
          lastAnswerAt = performance.now();
          const latency = lastAnswerAt - (context.startedAt ?? Number.NaN);
          (status === 200 ? okLatencies : status === 304 ? notModifiedLatencies : otherLatencies).push(latency);
          let met: boolean | undefined;
          if (options.changedAt) {
            // In flight at some moment of the window after the newest change that came before the answer.
            const changed = options.changedAt();
            met = changed !== undefined && (context.startedAt ?? Number.NaN) <= changed + CHANGE_WINDOW_MS;
            (met ? afterChangeLatencies : quietLatencies).push(latency);
          }
          if (TRACE)
            trace.push(
              met === undefined
                ? [context.startedAt! - started, latency, context.url ?? -1, status]
                : [context.startedAt! - started, latency, context.url ?? -1, status, met ? 1 : 0],
            );
          if (status === 200 && context.url !== undefined)
            asOf.answered(context.url, context.startedAt ?? Number.NaN, lastAnswerAt, _body);
          const tag = (headers as Record<string, string | undefined> | undefined)?.etag;
          if (tag !== undefined && context.url !== undefined) tags[context.url] = tag;
        },
      },
    ],
  });
  if (TRACE)
    appendFileSync(
      TRACE,
      `${JSON.stringify({ side: options.label, connections: options.connections, base: options.baseUrl, urls: mix.urls, trace })}\n`,
    );
  const ok = statuses[200] ?? 0;
  const notModified = statuses[304] ?? 0;
  const elapsedSeconds = (lastAnswerAt - started) / 1_000;
  const all = [...okLatencies, ...notModifiedLatencies, ...otherLatencies];
  return {
    requestsPerSecond: result.requests.total / elapsedSeconds,
    elapsedSeconds,
    p50Ms: quantile(all, 0.5),
    p99Ms: quantile(all, 0.99),
    okP99Ms: quantile(okLatencies, 0.99),
    notModifiedP50Ms: quantile(notModifiedLatencies, 0.5),
    notModifiedP99Ms: quantile(notModifiedLatencies, 0.99),
    autocannonP50Ms: result.latency.p50,
    autocannonP99Ms: result.latency.p99,
    total: result.requests.total,
    sent: next - (options.from ?? 0),
    ok,
    notModified,
    failures:
      Object.entries(statuses).reduce(
        (sum, [status, count]) => sum + (status === "200" || status === "304" ? 0 : count),
        0,
      ) +
      result.errors +
      result.timeouts,
    conditional,
    conditionalWithoutTag,
    statuses,
    asOfBack: asOf.back,
    ...(options.changedAt
      ? {
          afterChange: {
            share: afterChangeLatencies.length / Math.max(1, all.length),
            p50Ms: quantile(afterChangeLatencies, 0.5),
            p99Ms: quantile(afterChangeLatencies, 0.99),
          },
          quiet: { p50Ms: quantile(quietLatencies, 0.5), p99Ms: quantile(quietLatencies, 0.99) },
        }
      : {}),
  };
}

/**
 * The mix's own check that no answer's `as_of` goes back. Per URL, the newest block answered so far
 * as of each answer's arrival; an answer is a step back when its block is older than the newest one
 * that had arrived before its request left. The block is read from the body's `"as_of"` object
 * without parsing the rest (bodies reach 190 kB).
 */
function asOfWatch(urls: readonly string[]) {
  const arrivals: Array<Array<[at: number, newest: number]>> = urls.map(() => []);
  const back = { count: 0, examples: [] as string[] };
  return {
    back,
    answered(url: number, startedAt: number, at: number, body: string | undefined): void {
      const block = asOfBlock(body);
      if (block === undefined) return;
      const seen = arrivals[url]!;
      // The newest block among the answers that arrived before this request left.
      let low = 0;
      let high = seen.length;
      while (low < high) {
        const middle = (low + high) >> 1;
        if (seen[middle]![0] <= startedAt) low = middle + 1;
        else high = middle;
      }
      const before = low === 0 ? undefined : seen[low - 1]![1];
      if (before !== undefined && block < before) {
        back.count += 1;
        if (back.examples.length < 10) back.examples.push(`${urls[url]}: ${before} -> ${block}`);
      }
      seen.push([at, Math.max(block, seen.at(-1)?.[1] ?? block)]);
    },
  };
}

const AS_OF_BLOCK = /"block_number":"?(\d+)/;

function asOfBlock(body: string | undefined): number | undefined {
  if (body === undefined) return undefined;
  const at = body.indexOf('"as_of":');
  if (at === -1) return undefined;
  const match = AS_OF_BLOCK.exec(body.slice(at, at + 200));
  return match === null ? undefined : Number(match[1]);
}
