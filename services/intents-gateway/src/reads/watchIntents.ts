import type { ServerWritableStream } from "@grpc/grpc-js";
import { invalidArgument } from "@platform/errors";
import type { Logger } from "@platform/log";
import { IntentRecord, type WatchIntentsRequest, type WatchIntentsResponse } from "@platform/proto/intents/v1/intents";
import { intentsChangeLog } from "@platform/read-models";
import { resumePosition, streamChanges } from "@platform/service";
import type { ChangeEntry, ChangeFeed } from "@platform/store";
import { parseAddress, parseHash32 } from "../validation/fields.js";

export interface WatchIntentsOptions {
  feed: ChangeFeed;
  log: Logger;
  /** A caller that leaves this many bytes unread is ended (RESOURCE_EXHAUSTED). */
  maxBufferedBytes: number;
}

const { fields } = intentsChangeLog;

/**
 * `WatchIntents`: the matching changes after the caller's position from the intents read model's
 * change log (libs/read-models changeLogs.ts), then each new one as it is committed.
 */
export function watchIntents(
  options: WatchIntentsOptions,
): (call: ServerWritableStream<WatchIntentsRequest, WatchIntentsResponse>) => void {
  return (call) =>
    streamChanges<WatchIntentsRequest, WatchIntentsResponse>(call, {
      ...options,
      method: "WatchIntents",
      parse: () => ({ match: matcherOf(call.request), after: resumePosition(call.request.after) }),
      responseOf,
      gap: (position) => ({ position, change: { $case: "gap", value: true }, statusChanged: false }),
      live: (position) => ({ position, change: { $case: "live", value: true }, statusChanged: false }),
    });
}

/** Which entries the request wants: one user's records, or one order's (its placeholder's too). */
function matcherOf(request: WatchIntentsRequest): (entry: ChangeEntry) => boolean {
  const byUser = request.userAddress !== "";
  const byOrder = request.orderId !== "";
  if (byUser === byOrder)
    throw invalidArgument("INVALID_PARAMETER", "name exactly one of userAddress and orderId", {
      parameter: byUser ? "orderId" : "userAddress",
    });
  if (byUser) {
    const user = Buffer.from(parseAddress(request.userAddress, "userAddress"));
    return (entry) => entry.fields.get(fields.user)?.equals(user) === true;
  }
  const orderId = parseHash32(request.orderId, "orderId");
  const key = Buffer.from(orderId);
  return (entry) => {
    if (entry.fields.get(fields.key)?.equals(key)) return true;
    // A notified transaction's placeholder names the order it will open before the Open is read.
    const suffix = entry.fields.get(fields.key)?.toString() ?? "";
    const bytes = entry.fields.get(fields.record);
    return (
      suffix.startsWith("tx:") &&
      bytes !== undefined &&
      bytes.length > 0 &&
      IntentRecord.decode(bytes).orderId.toLowerCase() === orderId
    );
  };
}

function responseOf(entry: ChangeEntry): WatchIntentsResponse {
  const bytes = entry.fields.get(fields.record);
  if (bytes === undefined || bytes.length === 0)
    return {
      position: entry.id,
      change: { $case: "removed", value: entry.fields.get(fields.key)?.toString() ?? "" },
      statusChanged: true,
    };
  return {
    position: entry.id,
    change: { $case: "record", value: IntentRecord.decode(bytes) },
    statusChanged: entry.fields.get(fields.statusChanged)?.toString() === "1",
  };
}
