import type { RecordedEvent } from "@platform/http/eventConformance";

/**
 * An SSE parser (WHATWG HTML) fed a `text/event-stream` body chunk by chunk: hands each event to
 * `onEvent` as it completes, as an SSE parser yields it (`event` defaults to `message`; `id` is the
 * last one seen, which an event without an `id:` line keeps; comments and `retry:` are no events).
 */
export function sseParser(onEvent: (event: RecordedEvent) => void): (chunk: Uint8Array) => void {
  let lastId: string | undefined;
  let buffer = "";
  const decoder = new TextDecoder();
  const dispatch = (block: string) => {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split(/\r\n|\r|\n/)) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") data.push(value);
      else if (field === "event") event = value;
      else if (field === "id") lastId = value;
    }
    if (data.length > 0) onEvent({ event, data: data.join("\n"), ...(lastId === undefined ? {} : { id: lastId }) });
  };
  return (chunk) => {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      dispatch(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
    }
  };
}

/**
 * The body as its reader gets it, each chunk also handed to `onChunk` first. Not a `tee`: the
 * reader's cancel cancels the body at once (a tee's branch waits for the other branch to cancel
 * too, which held the typed client's `break` out of a stream forever).
 */
export function observedBody(
  body: ReadableStream<Uint8Array>,
  onChunk: (chunk: Uint8Array) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else {
        onChunk(value);
        controller.enqueue(value);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
