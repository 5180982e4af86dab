import type { ServerUnaryCall, sendUnaryData } from "@grpc/grpc-js";
import { type AppError, toGrpcError } from "@platform/errors";

export type UnaryCallHandler = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;

/**
 * A unary handler whose answer goes out only if `check` lets it: the check starts with the call,
 * before the handler (so a check that reads the same store is sent first and costs no extra
 * round trip where the client coalesces writes), and the handler's answer waits for it. `check`
 * resolves undefined to let the answer go, or the AppError to answer instead.
 */
export function checkedHandler(
  handler: UnaryCallHandler,
  check: () => Promise<AppError | undefined>,
): UnaryCallHandler {
  return (call, callback) => {
    const verdict = check();
    handler(call, (error, value, trailer, flags) => {
      void verdict.then((refusal) => {
        if (refusal === undefined) callback(error, value, trailer, flags);
        else callback(toGrpcError(refusal));
      });
    });
  };
}
