import type { RecordedEvent } from "@platform/http/eventConformance";

/**
 * Hands each event of a `text/event-stream` body to `onEvent` as an SSE parser yields it (WHATWG
 * HTML: `event` defaults to `message`; `id` is the last one seen, which an event without an `id:`
 * line keeps; comments and `retry:` are no events), until the body ends or is cancelled.
 */
export async function eventsOf(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: RecordedEvent) => void,
): Promise<void> {
  let lastId: string | undefined;
  let buffer = "";
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
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        dispatch(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  } finally {
    reader.releaseLock();
  }
}
