import { retryDelay } from "@platform/errors";
import { type HistoryDb, historyTables } from "@platform/history";
import type { Logger } from "@platform/log";
import { IntentRecord } from "@platform/proto/intents/v1/intents";
import { intentsChangeLog } from "@platform/read-models";
import type { Redis } from "@platform/store";

/**
 * Mirrors the intents read model's orders into the history database, so Redis is not their only
 * durable home once the chain topics are bounded (issue 41, point 1). It follows the projection's
 * change log (a Redis stream appended in the same commit as the change it records, with the
 * record as stored): each read of entries is written in one PostgreSQL transaction with the
 * stream position reached, so a restart resumes after the last entry written and an entry
 * written twice (a crash after the commit, before the position is known here) only upserts the
 * same state again. The intents projection itself is untouched: its Lua compare-and-set commit
 * stays the one writer of the read model.
 *
 * The log is trimmed to about 100,000 entries: a mirror stopped for longer than that would miss
 * changes, which it logs (`gap`) and counts rather than hides; the orders written later are whole
 * records, so every order changed again is right again.
 */
export interface IntentsHistoryMirror {
  /** The stream position written last ("0-0" before the first). */
  position(): string;
  /** Whether the last read and write went through (for readiness). */
  healthy(): boolean;
  /** Entries the trimmed log no longer held when they were due (0 unless the mirror fell too far behind). */
  gaps(): number;
  stop(): Promise<void>;
}

export interface IntentsHistoryMirrorOptions {
  /** A connection of the mirror's own: its blocking reads must not queue other commands. */
  redis: Redis;
  history: HistoryDb;
  log: Logger;
  /** Entries per read (and per PostgreSQL transaction); 500 by default. */
  count?: number;
  /** How long one read waits for new entries, ms; 1,000 by default. */
  blockMs?: number;
}

const STREAM = intentsChangeLog.key;

export function startIntentsHistoryMirror(options: IntentsHistoryMirrorOptions): IntentsHistoryMirror {
  const { redis, history, log } = options;
  const count = options.count ?? 500;
  const blockMs = options.blockMs ?? 1_000;
  let position = "0-0";
  let healthy = false;
  let gaps = 0;
  let stopped = false;
  let failures = 0;

  const loadPosition = async () => {
    const [row] = await history.unsafe(`select position from ${historyTables.streamPositions} where stream = $1`, [
      STREAM,
    ]);
    position = (row?.position as string | undefined) ?? "0-0";
  };

  const step = async () => {
    const read = (await redis.xreadBuffer("COUNT", count, "BLOCK", blockMs, "STREAMS", STREAM, position)) as
      | [Buffer, [Buffer, Buffer[]][]][]
      | null;
    const entries = read?.[0]?.[1] ?? [];
    if (entries.length === 0) return;
    if (await trimmedPast(redis, position)) {
      gaps += 1;
      log.error(
        { position },
        "the intents change log was trimmed past the mirror's position: changes in between may be missing from PostgreSQL",
      );
    }
    const rows = entries.map(([id, flat]) => changeRow(id.toString(), flat));
    const last = rows.at(-1)!.changeId;
    await writeChanges(history, rows, last);
    position = last;
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        if (!healthy && position === "0-0") await loadPosition();
        await step();
        healthy = true;
        failures = 0;
      } catch (error) {
        healthy = false;
        failures += 1;
        if (stopped) break;
        // A failure that says trying again cannot succeed is still retried slowly: the mirror has no other way back.
        const delay = retryDelay(error, failures, { firstMs: 250, maxMs: 10_000 }) ?? 30_000;
        log.warn({ err: error, attempt: failures }, "intents history mirror: read or write failed; trying again");
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  })();

  return {
    position: () => position,
    healthy: () => healthy,
    gaps: () => gaps,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

interface ChangeRow {
  orderKey: string;
  changeId: string;
  changeMs: string;
  changeSeq: string;
  user: string;
  record: Buffer | null;
  status: number | null;
  statusChanged: boolean;
}

function changeRow(changeId: string, flat: Buffer[]): ChangeRow {
  const { fields } = intentsChangeLog;
  const byName = new Map<string, Buffer>();
  for (let index = 0; index + 1 < flat.length; index += 2) byName.set(flat[index]!.toString(), flat[index + 1]!);
  const record = byName.get(fields.record);
  const present = record !== undefined && record.length > 0;
  return {
    orderKey: byName.get(fields.key)?.toString() ?? "",
    changeId,
    changeMs: changeId.split("-")[0]!,
    changeSeq: changeId.split("-")[1] ?? "0",
    user: byName.get(fields.user)?.toString() ?? "",
    record: present ? record : null,
    status: present ? IntentRecord.decode(record).status : null,
    statusChanged: byName.get(fields.statusChanged)?.toString() === "1",
  };
}

/** One transaction: the changes appended, each order's newest state upserted (or deleted), the position moved. */
async function writeChanges(history: HistoryDb, rows: readonly ChangeRow[], last: string): Promise<void> {
  const newest = new Map<string, ChangeRow>();
  for (const row of rows) newest.set(row.orderKey, row);
  const kept = [...newest.values()].filter((row) => row.record !== null);
  const removed = [...newest.values()].filter((row) => row.record === null).map((row) => row.orderKey);
  await history.begin(async (tx) => {
    await tx.unsafe(
      `insert into ${historyTables.intentOrderChanges} (order_key, change_id, change_ms, change_seq, status, status_changed, record)
       select * from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::int[], $6::boolean[], $7::bytea[])
       on conflict do nothing`,
      [
        rows.map((row) => row.orderKey),
        rows.map((row) => row.changeId),
        rows.map((row) => row.changeMs),
        rows.map((row) => row.changeSeq),
        rows.map((row) => row.status),
        rows.map((row) => row.statusChanged),
        rows.map((row) => row.record),
      ] as never,
    );
    if (removed.length > 0)
      await tx.unsafe(`delete from ${historyTables.intentOrders} where order_key = any($1::text[])`, [
        removed,
      ] as never);
    if (kept.length > 0)
      await tx.unsafe(
        `insert into ${historyTables.intentOrders} (order_key, user_address, status, record, change_id)
         select * from unnest($1::text[], $2::text[], $3::int[], $4::bytea[], $5::text[])
         on conflict (order_key) do update set user_address = excluded.user_address, status = excluded.status,
           record = excluded.record, change_id = excluded.change_id`,
        [
          kept.map((row) => row.orderKey),
          kept.map((row) => row.user),
          kept.map((row) => row.status),
          kept.map((row) => row.record),
          kept.map((row) => row.changeId),
        ] as never,
      );
    await tx.unsafe(
      `insert into ${historyTables.streamPositions} (stream, position) values ($1, $2)
       on conflict (stream) do update set position = excluded.position`,
      [STREAM, last],
    );
  });
}

/**
 * Whether entries after `position` may have been trimmed before the mirror read them. Redis keeps
 * no count of what a trim removed (max-deleted-entry-id follows XDEL only), so: from the start, when
 * more entries were ever added than the log holds; later, when the entry at `position` itself is
 * gone and the log now starts after it (trimming takes the oldest first, so while that entry stands
 * nothing after it was trimmed). It can only err by reporting a trim that took exactly the entries
 * already mirrored, which happens only to a mirror as far behind as the log is long.
 */
async function trimmedPast(redis: Redis, position: string): Promise<boolean> {
  const info = (await redis.xinfo("STREAM", STREAM)) as unknown[];
  const field = (name: string) => {
    const index = info.indexOf(name);
    return index < 0 ? undefined : info[index + 1];
  };
  if (position === "0-0") return Number(field("entries-added") ?? 0) > Number(field("length") ?? 0);
  const first = (field("first-entry") as [string, unknown] | null | undefined)?.[0];
  if (first === undefined || compareIds(first, position) <= 0) return false;
  return (await redis.xrange(STREAM, position, position)).length === 0;
}

function compareIds(left: string, right: string): number {
  const [lm, ls] = left.split("-").map(BigInt) as [bigint, bigint];
  const [rm, rs] = right.split("-").map(BigInt) as [bigint, bigint];
  return lm === rm ? (ls === rs ? 0 : ls < rs ? -1 : 1) : lm < rm ? -1 : 1;
}
