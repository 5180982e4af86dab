/**
 * Which PostgreSQL driver the history store uses: `pg` (node-postgres, the baseline) against
 * `postgres` (postgres.js), on the two things the history store does all day, measured in the same
 * run on a real server (Debian's postgresql-15, started by startPostgres):
 *
 * - a projection commit: one transaction that checks and moves the partition's offset and inserts
 *   a block's rows (BENCH_ROWS, 500 by default: a busy block's balance points) through unnest();
 * - a history read: an account's newest balance point at or before a block, and a 50-row page of
 *   its points, 32 reads in flight over a pool of 8 connections (data-query's read pattern).
 *
 * The SQL is the same text for both, so what differs is the driver. Rounds alternate the drivers.
 *
 *   pnpm --silent build && (cd bench && pnpm postgres-drivers)
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { startPostgres, tempDir } from "@platform/testing";
import pg from "pg";
import postgres from "postgres";
import { table } from "../src/load.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const COMMITS = Number(process.env.BENCH_COMMITS ?? 150);
const ROWS = Number(process.env.BENCH_ROWS ?? 500);
const READS = Number(process.env.BENCH_READS ?? 4_000);
const ACCOUNTS = 2_000;
const IN_FLIGHT = 32;
const POOL = 8;

const SCHEMA = `
create table points (account text not null, block bigint not null, hash text not null, at timestamptz not null,
  balance text not null, primary key (account, block));
create table offsets (name text primary key, position bigint not null);
insert into offsets values ('bench', -1);`;
const COMMIT_SQL = `insert into points select * from unnest($1::text[], $2::bigint[], $3::text[], $4::timestamptz[], $5::text[])
  on conflict (account, block) do update set hash = excluded.hash, balance = excluded.balance`;
const OFFSET_SQL = "update offsets set position = $1 where name = 'bench' and position = $2";
const AT_SQL = "select block, hash, balance from points where account = $1 and block <= $2 order by block desc limit 1";
const PAGE_SQL = "select block, hash, at, balance from points where account = $1 order by block desc limit 50";

interface Driver {
  name: string;
  commit(rows: Rows, offset: number): Promise<void>;
  read(account: string, block: number, page: boolean): Promise<number>;
  end(): Promise<void>;
}

type Rows = [string[], number[], string[], string[], string[]];

function rowsOf(block: number): Rows {
  const rows: Rows = [[], [], [], [], []];
  for (let index = 0; index < ROWS; index++) {
    rows[0].push(accountOf((block * ROWS + index) % ACCOUNTS));
    rows[1].push(block);
    rows[2].push(`0x${block.toString(16).padStart(64, "0")}`);
    rows[3].push(new Date(1_700_000_000_000 + block * 12_000).toISOString());
    rows[4].push(String(block * 1_000 + index));
  }
  return rows;
}

const accountOf = (index: number): string => `0x${index.toString(16).padStart(64, "0")}`;

function nodePostgres(url: string): Driver {
  const pool = new pg.Pool({ connectionString: url, max: POOL });
  return {
    name: "pg",
    async commit(rows, offset) {
      const client = await pool.connect();
      try {
        await client.query("begin");
        const moved = await client.query(OFFSET_SQL, [offset, offset - 1]);
        if (moved.rowCount !== 1) throw new Error("offset moved");
        await client.query(COMMIT_SQL, rows);
        await client.query("commit");
      } catch (error) {
        await client.query("rollback");
        throw error;
      } finally {
        client.release();
      }
    },
    async read(account, block, page) {
      // Named: pg prepares it once per connection, as postgres.js does with `prepare: true`.
      const result = page
        ? await pool.query({ name: "page", text: PAGE_SQL, values: [account] })
        : await pool.query({ name: "at", text: AT_SQL, values: [account, block] });
      return result.rowCount ?? 0;
    },
    end: () => pool.end(),
  };
}

function postgresJs(url: string): Driver {
  const sql = postgres(url, { max: POOL, onnotice: () => undefined });
  return {
    name: "postgres",
    async commit(rows, offset) {
      await sql.begin(async (tx) => {
        const moved = await tx.unsafe(OFFSET_SQL, [offset, offset - 1]);
        if (moved.count !== 1) throw new Error("offset moved");
        await tx.unsafe(COMMIT_SQL, rows as never);
      });
    },
    async read(account, block, page) {
      const rows = page
        ? await sql.unsafe(PAGE_SQL, [account], { prepare: true })
        : await sql.unsafe(AT_SQL, [account, block], { prepare: true });
      return rows.length;
    },
    end: () => sql.end({ timeout: 5 }),
  };
}

const quantile = (sorted: number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function main(): Promise<void> {
  const dir = tempDir("pg-drivers");
  const password = randomBytes(16).toString("hex");
  const server = await startPostgres({
    dataDir: join(dir.path, "data"),
    logFile: join(dir.path, "pg.log"),
    superuserPassword: password,
    durable: true,
  });
  const url = `postgres://postgres:${password}@127.0.0.1:${server.port}/postgres`;
  try {
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    await setup.query(SCHEMA);
    await setup.end();
    const drivers = [nodePostgres(url), postgresJs(url)];
    const commits = new Map<string, number[]>(drivers.map((driver) => [driver.name, []]));
    const reads = new Map<string, { ms: number; count: number; latencies: number[] }>(
      drivers.map((driver) => [driver.name, { ms: 0, count: 0, latencies: [] }]),
    );
    let offset = 0;
    let block = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const driver of drivers) {
        for (let index = 0; index < COMMITS; index++) {
          const rows = rowsOf(block++);
          const started = performance.now();
          await driver.commit(rows, offset++);
          commits.get(driver.name)!.push(performance.now() - started);
        }
        const tally = reads.get(driver.name)!;
        let next = 0;
        const started = performance.now();
        await Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            while (next < READS) {
              const index = next++;
              const at = performance.now();
              await driver.read(accountOf(index % ACCOUNTS), Math.floor(block / 2), index % 4 === 0);
              tally.latencies.push(performance.now() - at);
            }
          }),
        );
        tally.ms += performance.now() - started;
        tally.count += READS;
      }
    }
    await Promise.all(drivers.map((driver) => driver.end()));
    const rows = drivers.map((driver) => {
      const commitMs = commits.get(driver.name)!.sort((a, b) => a - b);
      const read = reads.get(driver.name)!;
      const readMs = read.latencies.sort((a, b) => a - b);
      return {
        driver: driver.name,
        commitMedianMs: quantile(commitMs, 0.5),
        commitP99Ms: quantile(commitMs, 0.99),
        readsPerSecond: (read.count / read.ms) * 1_000,
        readMedianMs: quantile(readMs, 0.5),
        readP99Ms: quantile(readMs, 0.99),
      };
    });
    const [base, other] = rows as [(typeof rows)[0], (typeof rows)[0]];
    console.log(
      `${ROUNDS} rounds x ${COMMITS} commits of ${ROWS} rows, ${READS} reads (${IN_FLIGHT} in flight, pool ${POOL}); baseline: pg\n`,
    );
    console.log(
      table(
        rows.map((row) => ({
          driver: row.driver,
          "commit median ms": row.commitMedianMs.toFixed(2),
          "commit p99 ms": row.commitP99Ms.toFixed(2),
          "reads/s": row.readsPerSecond.toFixed(0),
          "read median ms": row.readMedianMs.toFixed(3),
          "read p99 ms": row.readP99Ms.toFixed(3),
        })),
      ),
    );
    console.log(
      `\npostgres ÷ pg: commit median x${(other.commitMedianMs / base.commitMedianMs).toFixed(2)}, commit p99 x${(other.commitP99Ms / base.commitP99Ms).toFixed(2)}, reads/s x${(other.readsPerSecond / base.readsPerSecond).toFixed(2)}, read p99 x${(other.readP99Ms / base.readP99Ms).toFixed(2)}`,
    );
  } finally {
    await server.stop();
    dir.remove();
  }
}

await main();
