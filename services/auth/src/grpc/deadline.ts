import type { ServerUnaryCall } from "@grpc/grpc-js";
import { callDeadline } from "@platform/grpc";

/** The caller's deadline in epoch ms; a call without one gets `fallbackMs` from now. */
export function deadlineOf(call: ServerUnaryCall<unknown, unknown>, fallbackMs = 30_000): number {
  const deadline = callDeadline(call);
  return Number.isFinite(deadline) ? deadline : Date.now() + fallbackMs;
}
