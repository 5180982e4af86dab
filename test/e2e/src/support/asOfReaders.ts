import { expect } from "vitest";
import type { DataApi } from "./dataStack.js";

/*
 * Clients reading Data API routes in a loop while a test breaks something under them, each keeping
 * every answer it got: what the failover tests hold against "every answer is 200, or 503 with
 * Retry-After" and "no client sees an as_of go back".
 */

export interface Reading {
  client: number;
  path: string;
  /** 0: no HTTP answer at all (the connection failed, or no answer within the request's budget). */
  status: number;
  retryAfter: string | null;
  /** `as_of.block_number` of a 200. */
  block: number | undefined;
  at: number;
  /** The problem's `code` of an answer other than 200. */
  code?: string;
  error?: string;
}

export interface AsOfReaders {
  readings: Reading[];
  /** Resolves once some reading matches. */
  until(predicate: (reading: Reading) => boolean, what: string): Promise<void>;
  /** Resolves (with the time) once every path has had a 200 at `block` or later, read after this call. */
  allPast(block: number, timeoutMs: number): Promise<number>;
  stop(): Promise<void>;
  /** Every answer 200, or 503 with Retry-After; per client and path, as_of never went back. */
  expectNoStepBack(): void;
}

/** A request's budget: far beyond the gateway's own deadlines, so a hang shows as status 0. */
const REQUEST_TIMEOUT_MS = 30_000;

export function startAsOfReaders(options: { api: DataApi; paths: readonly string[]; clients: number }): AsOfReaders {
  const { api, paths } = options;
  const readings: Reading[] = [];
  let stopping = false;

  const read = async (client: number, path: string): Promise<void> => {
    const at = Date.now();
    try {
      const response = await fetch(`${api.base}${path}`, {
        headers: { authorization: `Bearer ${api.token}` },
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const body = (await response.json()) as { as_of?: { block_number?: number | string }; code?: string };
      const block = response.status === 200 ? Number(body.as_of?.block_number) : undefined;
      readings.push({
        client,
        path,
        status: response.status,
        retryAfter: response.headers.get("retry-after"),
        block,
        at,
        ...(response.status === 200 ? {} : { code: body.code }),
      });
    } catch (error) {
      readings.push({ client, path, status: 0, retryAfter: null, block: undefined, at, error: String(error) });
    }
  };
  const loops = Array.from({ length: options.clients }, async (_, client) => {
    while (!stopping) {
      for (const path of paths) await read(client, path);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  const waitUntil = async (check: () => boolean, what: string, timeoutMs: number): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  return {
    readings,
    until: (predicate, what) => waitUntil(() => readings.some(predicate), what, 120_000),
    async allPast(block, timeoutMs) {
      const since = Date.now();
      const reached = () =>
        paths.every((path) =>
          readings.some(
            (reading) =>
              reading.path === path && reading.at >= since && reading.status === 200 && reading.block! >= block,
          ),
        );
      await waitUntil(reached, `every route's as_of at block ${block} or later`, timeoutMs);
      return Date.now();
    },
    async stop() {
      stopping = true;
      await Promise.all(loops);
    },
    expectNoStepBack() {
      const refused = readings.filter(
        (reading) => !(reading.status === 200 || (reading.status === 503 && reading.retryAfter !== null)),
      );
      expect(refused.slice(0, 5), `${refused.length} answers neither 200 nor 503 with Retry-After`).toEqual([]);
      const stepsBack: string[] = [];
      const newest = new Map<string, number>();
      for (const reading of readings.filter((entry) => entry.status === 200).sort((a, b) => a.at - b.at)) {
        const stream = `${reading.client} ${reading.path}`;
        const before = newest.get(stream) ?? -1;
        if (reading.block! < before) stepsBack.push(`${stream}: ${before} -> ${reading.block}`);
        newest.set(stream, Math.max(before, reading.block!));
      }
      expect(stepsBack, "as_of went back for a client").toEqual([]);
      const statuses = new Map<number, number>();
      for (const reading of readings) statuses.set(reading.status, (statuses.get(reading.status) ?? 0) + 1);
      console.info(`${readings.length} answers: ${[...statuses].map(([status, n]) => `${n}× ${status}`).join(", ")}`);
    },
  };
}
