import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionKeeper } from "./ensurePartitions.js";
import { HISTORY_SCHEMA_VERSION, historySchemaVersion, migrateHistory } from "./migrateHistory.js";
import { historyTables } from "./schema.js";
import { type HistoryServer, startHistoryServer } from "./testSupport/startHistoryServer.js";

/* The history store on a real PostgreSQL 15: roles and their grants, migrations, partitions. */

let server: HistoryServer;

beforeAll(async () => {
  server = await startHistoryServer();
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe("migrations", () => {
  it("bring the schema to the newest version, and applying them again changes nothing", async () => {
    const owner = server.connect("history_owner", 1);
    expect(await historySchemaVersion(owner)).toBe(HISTORY_SCHEMA_VERSION);
    const again = await migrateHistory(owner);
    expect(again).toEqual({ applied: [], version: HISTORY_SCHEMA_VERSION });
  });

  it("two migrators at once apply each step once", async () => {
    const fresh = server.connect("postgres", 1);
    await fresh.unsafe(`delete from ${historyTables.migrations} where version = 999`);
    const step = { version: 999, name: "probe", sql: "create table history.probe_once (id int)" };
    const owners = [server.connect("history_owner", 1), server.connect("history_owner", 1)];
    const reports = await Promise.all(owners.map((owner) => migrateHistory(owner, [step])));
    expect(reports.flatMap((report) => report.applied)).toEqual([999]);
    await owners[0]!.unsafe("drop table history.probe_once");
    await owners[0]!.unsafe(`delete from ${historyTables.migrations} where version = 999`);
  });
});

describe("roles", () => {
  it("data_query reads and writes nothing", async () => {
    const reader = server.connect("data_query", 1);
    expect(await reader.unsafe(`select count(*)::int as n from ${historyTables.offsets}`)).toEqual([{ n: 0 }]);
    await expect(reader.unsafe(`insert into ${historyTables.offsets} values ('p', 't', 0, 1)`)).rejects.toThrow(
      /permission denied/,
    );
    await expect(reader`select history.ensure_block_partitions('account_points', 0, 1)`).rejects.toThrow(
      /permission denied/,
    );
  });

  it("the projector writes rows and creates partitions through the owner's function, but no schema", async () => {
    const writer = server.connect("projector", 1);
    const keeper = partitionKeeper();
    await writer.begin(async (tx) => {
      await keeper.ensure(tx, "account_points", 5n, 300_000n);
      await tx`insert into history.account_points values ('0xaa', 5, 1, 'm5'), ('0xaa', 300000, 2, 'm300000')`;
    });
    const partitions = await writer`
      select inhrelid::regclass::text as name from pg_inherits
      where inhparent = 'history.account_points'::regclass order by 1`;
    expect(partitions.map((row) => row.name)).toEqual(["history.account_points_b0", "history.account_points_b1"]);
    await expect(writer.unsafe("create table history.not_mine (id int)")).rejects.toThrow(/permission denied/);
    await expect(writer.unsafe(`drop table ${historyTables.accountPoints}`)).rejects.toThrow(/must be owner/);
    // Readers see the partitions the projector's function made.
    const reader = server.connect("data_query", 1);
    expect(await reader`select count(*)::int as n from history.account_points`).toEqual([{ n: 2 }]);
  });

  it("a block beyond every partition is refused until its partition exists", async () => {
    const writer = server.connect("projector", 1);
    await expect(writer`insert into history.account_points values ('0xbb', 9000000, 1, 'm')`).rejects.toThrow(
      /no partition/,
    );
  });
});

describe("passwords", () => {
  it("are stored as SCRAM verifiers sent by the client, and log in", async () => {
    const superuser = server.connect("postgres", 1);
    const [row] = await superuser`select rolpassword from pg_authid where rolname = 'projector'`;
    expect(row?.rolpassword).toMatch(/^SCRAM-SHA-256\$4096:/);
    expect(await server.connect("projector", 1)`select current_user as name`).toEqual([{ name: "projector" }]);
  });
});
