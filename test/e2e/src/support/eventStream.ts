/*
 * A minimal server-sent events reader for the end-to-end tests: what a client sees on the wire,
 * without the typed client's reconnects (the tests disconnect and resume themselves).
 */

export interface ReadEvent {
  id?: string;
  event: string;
  data: unknown;
}

export interface OpenedStream {
  status: number;
  /** The problem body when the stream was refused. */
  problem?: Record<string, unknown>;
  events: ReadEvent[];
  comments: string[];
  /** Resolves with the first event after `from` (an index into `events`) that `accept` takes. */
  next(accept: (event: ReadEvent) => boolean, timeoutMs?: number, from?: number): Promise<ReadEvent>;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openEventStream(url: string, token: string, lastEventId?: string): Promise<OpenedStream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: {
      authorization: `Bearer ${token}`,
      accept: "text/event-stream",
      ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
    },
    signal: controller.signal,
  });
  const events: ReadEvent[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  if (response.status !== 200) {
    const problem = (await response.json()) as Record<string, unknown>;
    return {
      status: response.status,
      problem,
      events,
      comments,
      next: () => Promise.reject(new Error(`stream refused: ${response.status}`)),
      ended: Promise.resolve(),
      close: () => undefined,
    };
  }
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const parsed = parseBlock(block, comments);
          if (parsed) events.push(parsed);
        }
        notify();
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      notify();
    }
  })();
  let finished = false;
  void ended.finally(() => (finished = true));
  return {
    status: 200,
    events,
    comments,
    ended,
    close: () => controller.abort(),
    next(accept, timeoutMs = 10_000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.slice(from).find(accept);
          if (found) {
            done();
            resolve(found);
          } else if (finished) {
            done();
            reject(new Error(`the stream ended without the event (got ${JSON.stringify(events.map((e) => e.event))})`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no such event within ${timeoutMs} ms (got ${JSON.stringify(events.map((e) => e.event))})`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

function parseBlock(block: string, comments: string[]): ReadEvent | undefined {
  let id: string | undefined;
  let event = "message";
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) comments.push(line.slice(1).trim());
    else if (line.startsWith("id: ")) id = line.slice(4);
    else if (line.startsWith("event: ")) event = line.slice(7);
    else if (line.startsWith("data: ")) data.push(line.slice(6));
  }
  if (data.length === 0) return undefined;
  return { ...(id === undefined ? {} : { id }), event, data: JSON.parse(data.join("\n")) };
}

/** Stream ids by time, then sequence. */
export function compareIds(a: string, b: string): number {
  const [aMs, aSeq] = a.split("-").map(BigInt) as [bigint, bigint];
  const [bMs, bSeq] = b.split("-").map(BigInt) as [bigint, bigint];
  return aMs === bMs ? Number(aSeq - bSeq) : aMs < bMs ? -1 : 1;
}
