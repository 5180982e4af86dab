import type { Redis } from "./createRedis.js";

/** One change-log entry: its stream id and its fields by name (values as bytes). */
export interface ChangeEntry {
  id: string;
  fields: Map<string, Buffer>;
}

export interface WatchOptions {
  /** Resume after this stream id; undefined: only entries appended from now on. */
  after?: string;
  /** Which entries this watcher wants. */
  match(entry: ChangeEntry): boolean;
  /** Called with each matching entry once, in stream order. */
  deliver(entry: ChangeEntry): void;
  /**
   * `after` is older than what the log keeps (entries after it were trimmed): called once, before
   * any delivery, with the oldest id still kept (undefined when the log is empty now).
   */
  gap(oldest: string | undefined): void;
  /** Caught up: every later matching entry is delivered as the log's tail is read. */
  live?(position: string): void;
  /** The log could not be read while catching up; the watch has ended. */
  failed(error: unknown): void;
}

export interface ChangeWatch {
  close(): void;
}

export interface ChangeFeed {
  watch(options: WatchOptions): ChangeWatch;
  /** Something was appended (a projection's change signal): read the log's tail now. */
  wake(): void;
  /** Watchers open now. */
  size(): number;
  close(): void;
}

export interface ChangeFeedOptions {
  redis: Redis;
  /** The stream (libs/read-models changeLogs.ts). */
  key: string;
  /** The tail is read at least this often, whatever the signals say (they may be lost); 1 s. */
  pollMs?: number;
  /** Entries read per XRANGE; 500. */
  pageSize?: number;
  /**
   * The most entries one watcher's catch-up reads (unbounded when absent). A position further
   * behind gets `gap` (naming the first entry it will be given) and only the newest `maxCatchUp`
   * entries: a resume from a stale or made-up position (`0-0`) would otherwise read the whole log
   * (100,000 entries, 30 MB, 2.6 s of the process that also serves reads) for one request. Read in
   * one XREVRANGE, so keep it to thousands.
   */
  maxCatchUp?: number;
  onError?(error: unknown): void;
}

interface Watcher {
  options: WatchOptions;
  /** The last id this watcher has been given (or skipped as not matching). */
  position: string;
  /** Entries the tail read while this watcher was still catching up. */
  buffered: ChangeEntry[] | undefined;
  closed: boolean;
}

/**
 * Follows a read model's change log for many watchers at once: one reader of the log's tail per
 * process (woken by the projection's NATS signal, and by a timer should a signal be lost) hands
 * each new entry to the watchers that match it. A watcher that resumes from an id first reads the
 * log from there on its own, while the tail's entries for it wait in a buffer; ids decide what was
 * already given, so the switch from catching up to following repeats and skips nothing.
 */
export function createChangeFeed(options: ChangeFeedOptions): ChangeFeed {
  const pageSize = options.pageSize ?? 500;
  const watchers = new Set<Watcher>();
  let tail: string | undefined;
  let reading: Promise<void> | undefined;
  let again = false;
  let closed = false;

  const readTail = async (): Promise<void> => {
    tail ??= await newestId(options.redis, options.key);
    for (;;) {
      const entries = await readAfter(options.redis, options.key, tail, pageSize);
      for (const entry of entries) {
        tail = entry.id;
        for (const watcher of watchers) offer(watcher, entry);
      }
      if (entries.length < pageSize) return;
    }
  };
  const pump = () => {
    if (closed) return;
    if (reading) {
      again = true;
      return;
    }
    reading = readTail()
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        reading = undefined;
        if (again) {
          again = false;
          pump();
        }
      });
  };
  const timer = setInterval(pump, options.pollMs ?? 1_000);
  timer.unref();

  const catchUp = async (watcher: Watcher) => {
    // The tail must be known before the catch-up reads: it starts at the log's newest id when first
    // read, so an entry appended between a catch-up's read and that first read of the tail would
    // otherwise fall between the two and reach no watcher (a resume in a process's first second).
    if (tail === undefined) {
      pump();
      await reading;
      if (tail === undefined) throw new Error(`the change log ${options.key} could not be read`);
    }
    const { after } = watcher.options;
    if (after === undefined) {
      // From now on: after the tail as this process knows it.
      watcher.position = tail;
    } else if (options.maxCatchUp === undefined) {
      const { gap, oldest } = await trimState(options.redis, options.key, after);
      if (gap && !watcher.closed) watcher.options.gap(oldest);
      for (;;) {
        const entries = await readAfter(options.redis, options.key, watcher.position, pageSize);
        for (const entry of entries) give(watcher, entry);
        if (entries.length < pageSize || watcher.closed) break;
      }
    } else {
      const { gap, oldest } = await trimState(options.redis, options.key, after);
      // The newest bound + 1 entries after the position: one more than the bound says it is passed.
      const newest = await readNewestAfter(options.redis, options.key, after, options.maxCatchUp + 1);
      const over = newest.length > options.maxCatchUp;
      const replay = newest.slice(0, options.maxCatchUp).reverse();
      if ((gap || over) && !watcher.closed) watcher.options.gap(over ? replay[0]?.id : oldest);
      for (const entry of replay) give(watcher, entry);
    }
    const buffered = watcher.buffered ?? [];
    watcher.buffered = undefined;
    for (const entry of buffered) give(watcher, entry);
    if (!watcher.closed) watcher.options.live?.(watcher.position);
  };

  return {
    watch(watchOptions) {
      const watcher: Watcher = {
        options: watchOptions,
        position: watchOptions.after ?? "0-0",
        buffered: [],
        closed: false,
      };
      watchers.add(watcher);
      catchUp(watcher).catch((error: unknown) => {
        watchers.delete(watcher);
        if (!watcher.closed) watchOptions.failed(error);
        watcher.closed = true;
      });
      return {
        close() {
          watcher.closed = true;
          watchers.delete(watcher);
        },
      };
    },
    wake: pump,
    size: () => watchers.size,
    close() {
      closed = true;
      clearInterval(timer);
      for (const watcher of watchers) watcher.closed = true;
      watchers.clear();
    },
  };
}

function offer(watcher: Watcher, entry: ChangeEntry): void {
  if (watcher.buffered) watcher.buffered.push(entry);
  else give(watcher, entry);
}

function give(watcher: Watcher, entry: ChangeEntry): void {
  if (watcher.closed || !idAfter(entry.id, watcher.position)) return;
  watcher.position = entry.id;
  if (watcher.options.match(entry)) watcher.options.deliver(entry);
}

/** Entries after `id` (exclusive), at most `count`. */
async function readAfter(redis: Redis, key: string, id: string, count: number): Promise<ChangeEntry[]> {
  const raw = await redis.xrangeBuffer(key, `(${id}`, "+", "COUNT", count);
  return raw.map(([rawId, flat]) => {
    const fields = new Map<string, Buffer>();
    for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i]!.toString(), flat[i + 1]!);
    return { id: rawId.toString(), fields };
  });
}

/** The newest `count` entries after `id` (exclusive), newest first. */
async function readNewestAfter(redis: Redis, key: string, id: string, count: number): Promise<ChangeEntry[]> {
  const raw = await redis.xrevrangeBuffer(key, "+", `(${id}`, "COUNT", count);
  return raw.map(([rawId, flat]) => {
    const fields = new Map<string, Buffer>();
    for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i]!.toString(), flat[i + 1]!);
    return { id: rawId.toString(), fields };
  });
}

/** The newest id in the log, or "0-0" when it is empty or absent. */
async function newestId(redis: Redis, key: string): Promise<string> {
  const [last] = await redis.xrevrange(key, "+", "-", "COUNT", 1);
  return last?.[0] ?? "0-0";
}

/**
 * Whether entries after `after` were trimmed away, and the oldest kept. Trimming removes the oldest
 * entries and Redis counts every entry ever added: when it counts more than the log holds, the
 * removed ones all came before the oldest kept, so a position before that may have lost some (a
 * position that was exactly the last removed entry is reported as a gap too: the caller re-reads).
 */
async function trimState(redis: Redis, key: string, after: string): Promise<{ gap: boolean; oldest?: string }> {
  const info = (await redis.xinfo("STREAM", key).catch((error: unknown) => {
    if (error instanceof Error && /no such key/i.test(error.message)) return undefined;
    throw error;
  })) as unknown[] | undefined;
  if (info === undefined) return { gap: false };
  const field = (name: string) => info[info.indexOf(name) + 1];
  const length = Number(field("length"));
  const added = Number(field("entries-added"));
  const first = field("first-entry") as [string, unknown] | null;
  const oldest = first?.[0];
  const gap = added > length && (oldest === undefined || idAfter(oldest, after));
  return { gap, ...(oldest === undefined ? {} : { oldest }) };
}

/** Whether stream id `a` comes after `b`. */
export function idAfter(a: string, b: string): boolean {
  const aDash = a.indexOf("-");
  const bDash = b.indexOf("-");
  const aMs = BigInt(aDash < 0 ? a : a.slice(0, aDash));
  const bMs = BigInt(bDash < 0 ? b : b.slice(0, bDash));
  if (aMs !== bMs) return aMs > bMs;
  return BigInt(aDash < 0 ? 0 : a.slice(aDash + 1)) > BigInt(bDash < 0 ? 0 : b.slice(bDash + 1));
}
