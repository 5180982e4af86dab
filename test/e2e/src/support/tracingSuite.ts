import { randomBytes } from "node:crypto";
import type { RunningStack } from "@platform/local-stack";
import { waitFor } from "@platform/testing";
import { describe, expect, it } from "vitest";
import { type OtlpReceiver, type ReceivedSpan, SPAN_KIND } from "./otlpReceiver.js";

/*
 * One trace per path with every hop in order, read back from the spans the stack's processes
 * exported to the test's OTLP receiver (support/otlpReceiver.ts; the stack runs with tracingEnv):
 *
 * - HTTP -> gateway -> batched gRPC -> data-query -> Redis;
 * - chain -> chain-ingestor -> Kafka -> projector -> Redis -> NATS.
 *
 * Each hop is checked by its parent link (the span before it) and its start time (not before its
 * parent's), not only by being present.
 */

export interface TracingSuiteContext {
  stack: RunningStack;
  receiver: OtlpReceiver;
  token(): Promise<string>;
}

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

function childOf(spans: readonly ReceivedSpan[], parent: ReceivedSpan, match: (span: ReceivedSpan) => boolean) {
  return spans.filter((span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId && match(span));
}

/** Asserts `chain` is a parent -> child path in one trace whose start times never go back. */
function expectHopsInOrder(chain: ReceivedSpan[]): void {
  for (let index = 1; index < chain.length; index += 1) {
    const parent = chain[index - 1]!;
    const child = chain[index]!;
    expect(child.traceId, `${child.name} in ${parent.name}'s trace`).toBe(parent.traceId);
    expect(child.parentSpanId, `${child.name}'s parent is ${parent.name}`).toBe(parent.spanId);
    expect(child.startNs >= parent.startNs, `${child.name} starts after ${parent.name}`).toBe(true);
  }
}

export function tracingSuite(context: () => TracingSuiteContext): void {
  describe("traces across every hop (OpenTelemetry)", () => {
    it("HTTP -> gateway -> batched gRPC -> data-query -> Redis: one trace per request", async () => {
      const { stack, receiver, token } = context();
      const bearer = await token();
      const accounts = stack.descriptor.substrate!.demoAccounts.map((account) => account.ss58);
      // Distinct questions (the gateway shares one call between identical concurrent ones and keeps
      // answers), all to data-query's accounts group, fired together: their calls leave batched.
      let found: ReceivedSpan[] | undefined;
      for (let round = 0; round < 5 && found === undefined; round += 1) {
        const requests = accounts.flatMap((address) =>
          [1, 2, 3, 4].map((step) => ({
            path: `/data/v1/accounts/${address}/balance/history?interval=1d&limit=${round * 4 + step}`,
            traceId: hex(16),
            parentId: hex(8),
          })),
        );
        const answers = await Promise.all(
          requests.map(async (request) => {
            const response = await fetch(`${stack.descriptor.gatewayUrl}${request.path}`, {
              headers: {
                authorization: `Bearer ${bearer}`,
                traceparent: `00-${request.traceId}-${request.parentId}-01`,
              },
            });
            await response.arrayBuffer();
            return response.status;
          }),
        );
        expect(
          answers.every((status) => status === 200),
          `answers ${answers.join(",")}`,
        ).toBe(true);
        found = await batchedTrace(receiver, requests);
      }
      expect(found, "a request whose gRPC call travelled in a batch, traced to Redis").toBeDefined();
      expectHopsInOrder(found!);
      const [server, client, backend, redis] = found!;
      expect(server!.service).toBe("gateway");
      expect(server!.name).toMatch(/^GET \/data\/v1\/accounts\//);
      expect(server!.name).not.toContain(accounts[0]!);
      expect(server!.attributes["http.response.status_code"]).toBe(200);
      expect(client!.service).toBe("gateway");
      expect(Number(client!.attributes["rpc.batch.size"])).toBeGreaterThanOrEqual(2);
      expect(backend!.service).toBe("data-query");
      expect(backend!.name).toBe(client!.name);
      expect(redis!.service).toBe("data-query");
      expect(redis!.attributes["db.system.name"]).toBe("redis");
      // The batch's own span links this call's client span. It ends once the batch's last call has,
      // so it may be exported a moment after the spans found above.
      await waitFor(
        async () =>
          receiver
            .spans()
            .find(
              (span) =>
                span.name.endsWith("CallBatchService/RunCalls") &&
                span.links.some((link) => link.spanId === client!.spanId),
            ),
        { what: "the RunCalls span linking the call", timeoutMs: 20_000, intervalMs: 200 },
      );
    }, 120_000);

    it("chain -> chain-ingestor -> Kafka -> projector -> Redis -> NATS: one trace per ingested block", async () => {
      const { receiver } = context();
      let found: ReceivedSpan[] | undefined;
      await waitFor(
        async () => {
          found = eventPathTrace(receiver.spans());
          return found !== undefined;
        },
        { what: "a block's trace from its ingestion to the NATS signal", timeoutMs: 60_000, intervalMs: 500 },
      );
      const [ingest, transaction, consume, commit] = found!;
      expectHopsInOrder([ingest!, transaction!, consume!, commit!]);
      const signal = found![4]!;
      expect(signal.parentSpanId).toBe(consume!.spanId);
      expect(signal.startNs >= commit!.startNs, "the signal is published after the commit started").toBe(true);
      expect(ingest!.parentSpanId).toBe("");
      expect(ingest!.service).toBe("chain-ingestor");
      expect(transaction!.kind).toBe(SPAN_KIND.producer);
      expect(consume!.service).toBe("projector");
      expect(consume!.kind).toBe(SPAN_KIND.consumer);
      expect(commit!.attributes["db.system.name"]).toBe("redis");
      expect(signal.kind).toBe(SPAN_KIND.producer);
      expect(signal.name).toMatch(/^publish readmodel\.changed\./);
    }, 90_000);
  });
}

/** The hops of a request whose client span says it was batched: [gateway server, gateway client, data-query server, a Redis command]. */
async function batchedTrace(
  receiver: OtlpReceiver,
  requests: { traceId: string; parentId: string }[],
): Promise<ReceivedSpan[] | undefined> {
  let result: ReceivedSpan[] | undefined;
  await waitFor(
    async () => {
      const spans = receiver.spans();
      let complete = 0;
      for (const request of requests) {
        const server = spans.find(
          (span) =>
            // The gateway starts a trace of its own at the public edge; the client's context is a link.
            span.kind === SPAN_KIND.server &&
            span.parentSpanId === "" &&
            span.links.some((link) => link.traceId === request.traceId && link.spanId === request.parentId),
        );
        if (server === undefined) continue;
        const client = childOf(spans, server, (span) => span.kind === SPAN_KIND.client && span.name.includes("/"))[0];
        if (client === undefined) continue;
        const backend = childOf(spans, client, (span) => span.kind === SPAN_KIND.server)[0];
        if (backend === undefined) continue;
        const redis = childOf(spans, backend, (span) => span.attributes["db.system.name"] === "redis")[0];
        if (redis === undefined) continue;
        complete += 1;
        if (result === undefined && Number(client.attributes["rpc.batch.size"] ?? 0) >= 2)
          result = [server, client, backend, redis];
      }
      return result !== undefined || complete === requests.length;
    },
    { what: "the requests' spans", timeoutMs: 20_000, intervalMs: 200 },
  ).catch(() => undefined);
  return result;
}

/** [ingest, kafka transaction, projector consume, Redis commit, NATS signal] of one trace, if one is complete. */
function eventPathTrace(spans: readonly ReceivedSpan[]): ReceivedSpan[] | undefined {
  for (const ingest of spans) {
    if (ingest.service !== "chain-ingestor" || !ingest.name.startsWith("ingest ") || ingest.parentSpanId !== "")
      continue;
    for (const transaction of childOf(spans, ingest, (span) => span.kind === SPAN_KIND.producer)) {
      for (const consume of childOf(spans, transaction, (span) => span.service === "projector")) {
        const commit = childOf(spans, consume, (span) => span.attributes["db.system.name"] === "redis").find((span) =>
          ["MULTI", "EVALSHA", "EVAL"].includes(span.name),
        );
        const signal = childOf(spans, consume, (span) => span.name.startsWith("publish readmodel.changed."))[0];
        if (commit !== undefined && signal !== undefined) return [ingest, transaction, consume, commit, signal];
      }
    }
  }
  return undefined;
}
