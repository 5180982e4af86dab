import { type HistoryDb, partitionKeeper } from "@platform/history";
import { type HistoryServer, startHistoryServer } from "@platform/history/testing";
import { BLOCKS_KEPT } from "@platform/read-models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRIM_BLOCKS_SQL, writeAccountsHistory } from "./historyStore.js";
import { accountsHistoryWrites } from "./historyWrites.js";

/*
 * The trim of history.account_blocks on a real PostgreSQL: each partition keeps its newest
 * BLOCKS_KEPT blocks, and the trim reads each partition's rows a bounded number of times (a
 * subquery per row read them BLOCKS_KEPT times each: ~35 ms per partition and commit once full,
 * which bench/store/accountsHistorySoak.ts found growing with every block of its soak).
 */

const PARTITIONS = 6;
let server: HistoryServer;
let db: HistoryDb;

beforeAll(async () => {
  server = await startHistoryServer();
  db = server.connect("projector");
  // Every partition full: blocks 1..=BLOCKS_KEPT delivered.
  await server.connect("postgres", 1).unsafe(
    `insert into history.account_blocks (partition, block, member)
     select p, b, 'block ' || b from generate_series(0, $1::int - 1) p, generate_series(1, $2::int) b`,
    [PARTITIONS, BLOCKS_KEPT] as never,
  );
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

interface PlanNode {
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  Plans?: PlanNode[];
}

/** Rows every node of the plan produced, over all its loops. */
const rowsVisited = (node: PlanNode): number =>
  (node["Actual Rows"] ?? 0) * (node["Actual Loops"] ?? 1) +
  (node.Plans ?? []).reduce((sum, child) => sum + rowsVisited(child), 0);

describe("accounts history: delivered blocks", () => {
  it("keeps each partition's newest blocks, reading its rows a bounded number of times", async () => {
    const partitions = Array.from({ length: PARTITIONS }, (_, partition) => partition);
    const [plan] = await db
      .begin(async (tx) => {
        const rows = await tx.unsafe(`explain (analyze, format json) ${TRIM_BLOCKS_SQL}`, [
          partitions,
          BLOCKS_KEPT - 10,
        ] as never);
        // Explain analyze deletes for real: rolled back, so the table stays full.
        throw Object.assign(new Error("rollback"), { rows });
      })
      .catch((error: { rows?: Array<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }> }) => error.rows ?? []);
    const visited = rowsVisited(plan!["QUERY PLAN"][0]!.Plan);
    // Linear in the table (3,072 rows here), not quadratic (BLOCKS_KEPT x the table: 1.6 M).
    expect(visited).toBeLessThan(10 * PARTITIONS * BLOCKS_KEPT);

    const next = BLOCKS_KEPT + 1;
    await db.begin((tx) =>
      writeAccountsHistory(
        tx,
        accountsHistoryWrites(
          partitions.map((partition) => ({ kind: "block", partition, number: String(next), member: `block ${next}` })),
        ),
        partitionKeeper(),
      ),
    );
    const kept = await db`
      select partition, count(*)::int as blocks, min(block)::int as oldest, max(block)::int as newest
      from history.account_blocks group by partition order by partition`;
    expect(kept.map((row) => ({ ...row }))).toEqual(
      partitions.map((partition) => ({ partition, blocks: BLOCKS_KEPT, oldest: 2, newest: next })),
    );
  }, 60_000);
});
