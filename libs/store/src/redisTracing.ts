import { context, noSampledContext, type Span, SpanKind, SpanStatusCode, trace, tracer } from "@platform/telemetry";
import type { Redis } from "ioredis";

/** What this module reads of an ioredis command. */
interface SentCommand {
  name: string;
  args: unknown[];
}

type SendCommand = (command: SentCommand, ...rest: unknown[]) => Promise<unknown>;

/**
 * Client spans for the Redis commands this connection sends inside a sampled trace (a read served
 * for a request, a projection's commit): one per command, one per MULTI/EXEC (its commands none of
 * their own). Only the command's name and its argument count are recorded, never keys or values
 * (they carry addresses, token hashes and key material). Commands outside a sampled trace
 * (readiness PINGs, the change feed's polling, the 99 % a ratio sampler leaves out) cost one
 * look-up of the active span: nothing is built for them.
 *
 * It wraps the connection's own `sendCommand`, the one door every command and every pipeline's
 * commands go through (as coalesceWrites does), rather than ioredis's diagnostics channels: those
 * build each command's context (every argument turned into a string) before a subscriber can say
 * it does not want it, a cost on every command even with no trace sampled (bench/data with
 * BENCH_TRACING=1 measures tracing's cost).
 */
export function traceRedisCommands(redis: Redis): void {
  const send = redis.sendCommand as unknown as SendCommand;
  const attributes = () => ({
    "db.system.name": "redis",
    "db.system": "redis",
    "server.address": String(redis.options.host ?? ""),
    "server.port": Number(redis.options.port ?? 0),
  });
  // A MULTI's commands are sent one after the other in one go, up to its EXEC (or DISCARD).
  let transaction: { span: Span; commands: number } | undefined;

  const traced = function sendTraced(this: Redis, command: SentCommand, ...rest: unknown[]): Promise<unknown> {
    if (transaction !== undefined) {
      const name = command.name.toLowerCase();
      if (name !== "exec" && name !== "discard") {
        transaction.commands += 1;
        return send.call(this, command, ...rest);
      }
      const { span, commands } = transaction;
      transaction = undefined;
      span.setAttribute("db.operation.batch.size", commands);
      return ended(span, send.call(this, command, ...rest));
    }
    // Nearly every command at a low ratio: nothing sampled is in flight, so no parent to look up.
    if (noSampledContext()) return send.call(this, command, ...rest);
    const parent = context.active();
    // A leaf: nothing to propagate, so a trace sampled out costs nothing more here.
    if (trace.getSpan(parent)?.isRecording() !== true) return send.call(this, command, ...rest);
    const operation = command.name.toUpperCase();
    const span = tracer().startSpan(
      operation,
      {
        kind: SpanKind.CLIENT,
        attributes: { ...attributes(), "db.operation.name": operation, "db.redis.args_count": command.args.length },
      },
      parent,
    );
    if (operation === "MULTI") {
      transaction = { span, commands: 0 };
      return send.call(this, command, ...rest);
    }
    return ended(span, send.call(this, command, ...rest));
  };
  redis.sendCommand = traced as unknown as Redis["sendCommand"];
}

/** Ends the span when the reply (or the failure) arrives; hands the promise on unchanged. */
function ended(span: Span, reply: Promise<unknown>): Promise<unknown> {
  reply.then(
    () => span.end(),
    (error: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : "error" });
      span.end();
    },
  );
  return reply;
}
