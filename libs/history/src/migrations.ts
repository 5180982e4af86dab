import { DEFAULT_BLOCKS_PER_PARTITION } from "./schema.js";

/** One step of the history schema, applied once, in order, by `migrateHistory` as the schema's owner. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * The history schema, step by step. A released step is never edited: a change is a new step.
 *
 * Tables that grow with the chain are partitioned by block range; `history.ensure_block_partitions`
 * creates the partitions a commit needs. It runs as the schema's owner (SECURITY DEFINER), so the
 * projector creates partitions without holding DDL rights, and every partition is owned alike and
 * inherits the owner's default grants (select for data_query, writes for projector).
 */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: "offsets, partition plan, account history",
    sql: `
create table history.projection_offsets (
  projection text not null,
  topic text not null,
  partition integer not null,
  "offset" bigint not null,
  primary key (projection, topic, partition)
);

create table history.partition_plan (
  parent text primary key,
  blocks_per_partition bigint not null check (blocks_per_partition > 0)
);

create function history.ensure_block_partitions(parent_table text, first_block bigint, last_block bigint)
returns void language plpgsql security definer set search_path = history, pg_temp as $$
declare
  size bigint;
  k bigint;
  child text;
begin
  select blocks_per_partition into size from history.partition_plan where parent = parent_table;
  if size is null then
    raise exception 'no partition plan for %', parent_table;
  end if;
  for k in (first_block / size) .. (last_block / size) loop
    child := format('%s_b%s', parent_table, k);
    if to_regclass(format('history.%I', child)) is null then
      -- Replicas of the projector may race for the same partition: one creates it, the others wait here.
      perform pg_advisory_xact_lock(hashtext('history.' || child));
      if to_regclass(format('history.%I', child)) is null then
        execute format('create table history.%I partition of history.%I for values from (%s) to (%s)',
          child, parent_table, k * size, (k + 1) * size);
      end if;
    end if;
  end loop;
end $$;
revoke all on function history.ensure_block_partitions(text, bigint, bigint) from public;

-- An account's balance after each block that changed it: at most one point per block; member as
-- in the Redis points zset (libs/read-models accounts.ts), score the block time in unix seconds.
create table history.account_points (
  account text not null,
  block bigint not null,
  score bigint not null,
  member text not null,
  primary key (account, block)
) partition by range (block);

-- An account's activity in chain order; (score, member) is the order and the page cursor, as in
-- the Redis txs zset; detail is the base64 AccountActivity without balance_after.
create table history.account_transactions (
  account text not null,
  block bigint not null,
  score bigint not null,
  member text not null,
  detail text not null,
  primary key (account, block, member)
) partition by range (block);
create index account_transactions_by_time on history.account_transactions (account, score, member);

-- Each partition's newest delivered blocks (its BlockSeen records), from which the accounts head is
-- rebuilt; trimmed as the Redis copy is.
create table history.account_blocks (
  partition integer not null,
  block bigint not null,
  member text not null,
  primary key (partition, member)
);

insert into history.partition_plan values
  ('account_points', ${DEFAULT_BLOCKS_PER_PARTITION}),
  ('account_transactions', ${DEFAULT_BLOCKS_PER_PARTITION});
`,
  },
  {
    version: 2,
    name: "series points (market and subnets)",
    sql: `
-- Every point of every market and subnets series (pools, prices, emissions, network stats, subnet
-- settings, metagraphs, holders), as the projector folds it: point is the SeriesPoint JSON the
-- Redis points zset holds (libs/read-models series.ts), series the Redis points key that names it.
-- Redis keeps each series' newest points (its hot window); this table keeps them all. The state at
-- block N is a series' newest row with block <= N. Price series are keyed by their oracle chain's
-- block, like the zset's ordinal.
create table history.series_points (
  series text not null,
  block bigint not null,
  ordinal bigint not null,
  point text not null,
  primary key (series, block, ordinal)
) partition by range (block);

-- The few sets and hashes a snapshot projection's fold reads besides its series (price tombstones,
-- known price pairs, holder chunks waiting for the rest of their block), as Redis keeps them:
-- a set's member is a field with an empty value.
create table history.projection_state (
  projection text not null,
  key text not null,
  field text not null,
  value text not null,
  primary key (projection, key, field)
);

-- Each series' bucket aggregates (5m/1h/4h/1d OHLC and volumes), as the Redis bucket zsets hold
-- them (libs/read-models series.ts BucketAggregate JSON), kept for ever: what a lost Redis gets
-- its candles back from.
create table history.series_buckets (
  series text not null,
  bucket text not null,
  start bigint not null,
  aggregate text not null,
  primary key (series, bucket, start)
);

insert into history.partition_plan values ('series_points', ${DEFAULT_BLOCKS_PER_PARTITION});
`,
  },
  {
    version: 3,
    name: "intents orders and their status history",
    sql: `
-- The intents read model's orders as the projection last committed them, mirrored from its change
-- log (libs/read-models changeLogs.ts intentsChangeLog, a Redis stream appended in each commit):
-- order_key is the record's key suffix (an orderId, or tx:<chainId>:<txHash> for a notified
-- transaction that opened no order), record the protobuf IntentRecord as stored in Redis.
create table history.intent_orders (
  order_key text primary key,
  user_address text not null,
  status integer not null,
  record bytea not null,
  change_id text not null
);
create index intent_orders_by_user on history.intent_orders (user_address, order_key);

-- Every committed change of a record, in commit order: its status history (status_changed says
-- whether the status moved, or only a step's finality or the notification's link). An empty
-- record is its removal by a reorganisation. change_ms is the change log id's time.
create table history.intent_order_changes (
  order_key text not null,
  change_id text not null,
  change_ms bigint not null,
  change_seq bigint not null,
  status integer,
  status_changed boolean not null,
  record bytea,
  primary key (order_key, change_id)
);

-- How far a mirror has read a Redis stream (an entry id, <ms>-<seq>).
create table history.stream_positions (
  stream text primary key,
  position text not null
);
`,
  },
  {
    version: 4,
    name: "series points: block time, and which points stand whole",
    sql: `
-- Computed from the point itself, so that no writer (an older projector mid-upgrade included) can
-- leave them out. Adding them rewrites every partition once, under lock: plan the step's downtime
-- by the table's size.
-- time_ms: the point's block time (its 't'), so a history window finds each bucket's point with one
--   probe of series_points_by_time per partition instead of a binary search over blocks.
-- keyframe: false for a point that is a delta against the series' previous point (holder sets,
--   SeriesPoint 'd'); a read at a block starts from the newest keyframe at or below it.
alter table history.series_points
  add column time_ms bigint generated always as (((point::json) ->> 't')::bigint) stored,
  add column keyframe boolean generated always as (((point::json) ->> 'd') is null) stored;
create index series_points_by_time on history.series_points (series, time_ms, block, ordinal);
`,
  },
  {
    version: 5,
    name: "account blocks by partition and block",
    sql: `
-- data-query checks, in the snapshot it reads an account's history in, that the head it names
-- stands in every partition (services/data-query accounts/historyAtHead.ts): two probes a partition.
create index account_blocks_by_block on history.account_blocks (partition, block);
`,
  },
];
