import type { ServerUnaryCall } from "@grpc/grpc-js";

/** The caller's deadline in epoch ms; Infinity when it set none. */
export function callDeadline(call: ServerUnaryCall<unknown, unknown>): number {
  const deadline = call.getDeadline();
  const ms = deadline instanceof Date ? deadline.getTime() : Number(deadline);
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}
