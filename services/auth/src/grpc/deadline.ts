import type { ServerUnaryCall } from "@grpc/grpc-js";

/** The caller's deadline in epoch ms; a call without one gets `fallbackMs` from now. */
export function deadlineOf(call: ServerUnaryCall<unknown, unknown>, fallbackMs = 30_000): number {
  const deadline = call.getDeadline();
  const ms = deadline instanceof Date ? deadline.getTime() : Number(deadline);
  return Number.isFinite(ms) ? ms : Date.now() + fallbackMs;
}
