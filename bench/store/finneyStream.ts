/**
 * A generated chain.network.v1 stream of Finney's shape for the accounts projection
 * (accountsHistorySoak.ts): no chain. The records are built as the native ingestor builds them
 * (services/chain-ingestor/src/native: records/activityEvents.ts, facts/balanceSnapshots.ts,
 * records/blockSeen.ts) and encoded with the real protobuf types (@platform/proto `encodePayload`),
 * keyed as the ingestor keys them (an account's public key; BlockSeen by `keysForEveryPartition`).
 *
 * The state, seeded (mulberry32, as bench/native/scale/scaleState.ts), with that bench's mainnet
 * sizes (its README): 100,006 accounts, 34,032 of them stakers (its `StakingHotkeys` count) holding
 * 111,255 positions over netuids 0..=128 (root 4,934 positions, the subnets ~830 each, weighted
 * 0.4-1.6), on 2,048 hotkeys. Every block, in the ingestor's order:
 * - AccountActivity records, BENCH_SOAK_ACTIVITY_MIN..MAX per block (20-60, uniform): 60 % of the
 *   activities transfers (two records, out and in), 40 % stake adds or removes (one record) on one
 *   of the staker's positions; 30 % of the acting accounts from a hot set of 1,000 (exchanges,
 *   bots). Each carries the account's balance at the end of the block with all its positions;
 * - on an epoch block, one AccountBalanceSnapshot per staker of the subnet that stepped without
 *   activity of its own in the block (the epoch's emission raised each of its positions there by
 *   0.01-0.2 %), its whole balance;
 * - a BlockSeen per partition, last.
 * Epochs as on Finney at Tempo 360 (bench/native/scale/README.md): netuid `359 - (block mod 361)`
 * steps on the blocks ≡ 231..359 (mod 361), one subnet each; the other 232 of every 361 step none.
 *
 * An extension (finneyNetwork.ts) may add the block's other kinds between the balance snapshots and
 * the BlockSeen records, where the ingestor puts them; it draws from a generator of its own, so the
 * accounts records are the same with it or without.
 */
import { createHash } from "node:crypto";
import { keysForEveryPartition } from "@platform/bus";
import { type ChainRef, Finality } from "@platform/proto/common/v1/common";
import { type AccountId, Direction, TransactionSource, TransactionType } from "@platform/proto/common/v1/network";
import type { AccountBalance, NetworkChainEvent } from "@platform/proto/events/v1/chain_network";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import { accountFromPublicKey } from "@platform/subtensor";

export const FINNEY_SIZES = {
  accounts: 100_006,
  stakers: 34_032,
  positions: 111_255,
  rootPositions: 4_934,
  subnets: 128,
  hotkeys: 2_048,
  hotAccounts: 1_000,
};
export const TEMPO = 360;
const EVENT_NAMES: Partial<Record<TransactionType, string>> = {
  [TransactionType.TRANSACTION_TYPE_TRANSFER]: "Balances.Transfer",
  [TransactionType.TRANSACTION_TYPE_STAKE_ADD]: "SubtensorModule.StakeAdded",
  [TransactionType.TRANSACTION_TYPE_STAKE_REMOVE]: "SubtensorModule.StakeRemoved",
};
const CHAIN_ID = "964";
const BLOCK_SECONDS = 12;
/** 1 Jan 2027 00:00 UTC at the stream's first block. */
const T0_MS = Date.UTC(2027, 0, 1);

/** One record as the ingestor hands it to Kafka. */
export interface StreamRecord {
  key: string;
  value: Buffer;
  eventType: string;
  eventId: string;
}

export interface StreamBlock {
  number: number;
  /** The netuid whose epoch ran in the block, or undefined. */
  epoch: number | undefined;
  records: StreamRecord[];
  activities: number;
  snapshots: number;
  bytes: number;
}

/** What an extension learns of each block: its ref, its epoch and its activities' effects. */
export interface BlockFacts {
  number: number;
  ref: ChainRef;
  epoch: number | undefined;
  /**
   * The block's stake adds and removes: the position's netuid and hotkey (an index into
   * `WorldView.hotkeys`), the staker's coldkey (public key) and whether it added (a buy of alpha).
   */
  stakeTouches: Array<{ netuid: number; hotkey: number; coldkey: string; adding: boolean }>;
  /** Extrinsics (one per activity) and, of them, transfers: the block's own counts (NetworkStatsSnapshot). */
  extrinsics: number;
  transfers: number;
}

/** The accounts' state an extension reads (never writes): positions move as the stream goes. */
export interface WorldView {
  seed: number;
  hotkeys: readonly AccountId[];
  accounts: ReadonlyArray<{ id: AccountId; positions: ReadonlyArray<Readonly<Position>> }>;
  /** Each netuid's stakers (account indexes), ascending. */
  stakersOf: readonly (readonly number[])[];
}

/** Encodes a chain.network.v1 record keyed `key`, its event id `<chain>:<parts>` as the ingestor's networkEventId. */
export type RecordEncoder = (key: string, payload: NetworkChainEvent, ...id: (string | number)[]) => StreamRecord;

/** Records of the other kinds, for the first full snapshot and for each block. */
export interface StreamExtension {
  snapshot(ref: ChainRef): StreamRecord[];
  block(facts: BlockFacts): StreamRecord[];
}

export interface StreamOptions {
  seed: number;
  firstBlock: number;
  activityMin: number;
  activityMax: number;
  /** Adds the block's other kinds (finneyNetwork.ts). */
  extend?: (world: WorldView, record: RecordEncoder) => StreamExtension;
}

/** The netuid that steps in `block` at Tempo 360 (`(block + netuid + 1) % 361 == 360`), or undefined. */
export function epochNetuid(block: number): number | undefined {
  const phase = block % (TEMPO + 1);
  const netuid = TEMPO - 1 - phase;
  return netuid >= 0 && netuid <= FINNEY_SIZES.subnets ? netuid : undefined;
}

/** mulberry32, as bench/native/scale/scaleState.ts `prng`. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface Position {
  netuid: number;
  hotkey: number;
  stake: number;
}

interface Account {
  id: AccountId;
  free: number;
  positions: Position[];
}

interface Activity {
  type: TransactionType;
  from: number;
  to: number | undefined;
  amount: number;
  position: Position | undefined;
  parties: Array<{ account: number; direction: Direction }>;
}

export interface FinneyStream {
  accounts: number;
  stakers: number;
  positions: number;
  /** Distinct stakers per netuid (an epoch's snapshots, before leaving out the block's active accounts). */
  stakersPerNetuid: number[];
  /** The ingestor's first full snapshot: a balance snapshot of every staker, at the block before the stream. */
  snapshot(): StreamBlock;
  next(): StreamBlock;
}

export const keyOf = (random: () => number): string => {
  let hex = "0x";
  for (let word = 0; word < 8; word++)
    hex += Math.floor(random() * 4_294_967_296)
      .toString(16)
      .padStart(8, "0");
  return hex;
};

/** The seeded state and the draws every generator below takes from, in one sequence. */
interface World {
  options: StreamOptions;
  random: () => number;
  int: (below: number) => number;
  /** Log-uniform (many small, few large), in rao / nano-alpha. */
  amount: (min: number, max: number) => number;
  hotkeys: AccountId[];
  accounts: Account[];
  /** Each netuid's stakers (account indexes), ascending. */
  stakersOf: number[][];
  /** A hot set of accounts (exchanges, bots) that act more often. */
  hot: number[];
}

function buildWorld(options: StreamOptions): World {
  const random = prng(options.seed);
  const int = (below: number) => Math.floor(random() * below);
  const amount = (min: number, max: number) =>
    Math.floor(Math.exp(Math.log(min) + random() * (Math.log(max) - Math.log(min))) * 1e9);
  const sizes = FINNEY_SIZES;
  const hotkeys = Array.from({ length: sizes.hotkeys }, () => accountFromPublicKey(keyOf(random) as `0x${string}`));
  const accounts: Account[] = Array.from({ length: sizes.accounts }, () => ({
    id: accountFromPublicKey(keyOf(random) as `0x${string}`),
    free: amount(0.01, 50_000),
    positions: [],
  }));
  const pickNetuid = netuidPicker(random);
  const holders: Set<number>[] = Array.from({ length: sizes.subnets + 1 }, () => new Set());
  for (let index = 0; index < sizes.positions; index++) {
    const staker = index < sizes.stakers ? index : int(sizes.stakers);
    const netuid = pickNetuid();
    accounts[staker]!.positions.push({ netuid, hotkey: int(sizes.hotkeys), stake: amount(0.1, 20_000) });
    holders[netuid]!.add(staker);
  }
  const stakersOf = holders.map((set) => [...set].sort((a, b) => a - b));
  const hot = Array.from({ length: sizes.hotAccounts }, () => int(sizes.accounts));
  return { options, random, int, amount, hotkeys, accounts, stakersOf, hot };
}

/** Refs, balances and encoded records of the world's accounts. */
function encoder(world: World) {
  const { options, accounts, hotkeys } = world;
  const hashOf = (block: number) => `0x${createHash("sha256").update(`${options.seed}:${block}`).digest("hex")}`;
  const refOf = (block: number) => ({
    chainId: CHAIN_ID,
    blockNumber: String(block),
    blockHash: hashOf(block),
    parentHash: hashOf(block - 1),
    blockTimestamp: new Date(T0_MS + (block - options.firstBlock) * BLOCK_SECONDS * 1_000).toISOString(),
    finality: Finality.FINALITY_LATEST,
  });
  const balanceOf = (account: Account): AccountBalance => ({
    freeRao: String(account.free),
    reservedRao: "0",
    frozenRao: "0",
    positions: account.positions.map((position) => ({
      netuid: position.netuid,
      hotkey: hotkeys[position.hotkey]!,
      stakeNalpha: String(position.stake),
    })),
    rewards: [],
  });
  const record = (key: string, payload: NetworkChainEvent, ...id: (string | number)[]): StreamRecord => {
    const value = encodePayload(TOPICS.chainNetwork, payload);
    return {
      key,
      value: Buffer.from(value.buffer, value.byteOffset, value.byteLength),
      eventType: eventTypeOf(payload),
      eventId: [CHAIN_ID, ...id].join(":"),
    };
  };
  const seenKeys = keysForEveryPartition("block-seen:", TOPICS.chainNetwork.partitions);
  return {
    refOf,
    balanceOf,
    record,
    /** One AccountBalanceSnapshot per account (facts/balanceSnapshots.ts). */
    snapshots(block: number, ids: Iterable<number>): StreamRecord[] {
      const ref = refOf(block);
      return [...ids].map((index) => {
        const account = accounts[index]!;
        const payload: NetworkChainEvent = {
          event: { $case: "accountBalanceSnapshot", value: { ref, account: account.id, balance: balanceOf(account) } },
        };
        return record(account.id.publicKey, payload, ref.blockHash, "AccountBalanceSnapshot", account.id.publicKey);
      });
    },
    /** A BlockSeen per partition (records/blockSeen.ts). */
    blockSeen(block: number): StreamRecord[] {
      const ref = refOf(block);
      const payload: NetworkChainEvent = {
        event: { $case: "blockSeen", value: { ref, partitions: TOPICS.chainNetwork.partitions } },
      };
      return seenKeys.map((key) => record(key, payload, ref.blockHash, "BlockSeen", key));
    },
  };
}

type Encoder = ReturnType<typeof encoder>;

/** One activity, applied to the world's balances: a transfer (60 %) or a stake add or remove. */
function nextActivity(world: World): Activity {
  const { random, int, amount, accounts, hot } = world;
  const sizes = FINNEY_SIZES;
  if (random() < 0.6) {
    const actor = () => (random() < 0.3 ? hot[int(hot.length)]! : int(sizes.accounts));
    const from = actor();
    let to = actor();
    if (to === from) to = (from + 1) % sizes.accounts;
    const sent = Math.min(amount(0.001, 5_000), accounts[from]!.free);
    accounts[from]!.free -= sent;
    accounts[to]!.free += sent;
    return {
      type: TransactionType.TRANSACTION_TYPE_TRANSFER,
      from,
      to,
      amount: sent,
      position: undefined,
      parties: [
        { account: from, direction: Direction.DIRECTION_OUT },
        { account: to, direction: Direction.DIRECTION_IN },
      ],
    };
  }
  const from = random() < 0.3 ? hot[int(hot.length)]! % sizes.stakers : int(sizes.stakers);
  const account = accounts[from]!;
  const position = account.positions[int(account.positions.length)]!;
  const adding = random() < 0.55;
  const moved = Math.min(amount(0.01, 2_000), adding ? account.free : position.stake);
  account.free += adding ? -moved : moved;
  position.stake += adding ? moved : -moved;
  return {
    type: adding ? TransactionType.TRANSACTION_TYPE_STAKE_ADD : TransactionType.TRANSACTION_TYPE_STAKE_REMOVE,
    from,
    to: undefined,
    amount: moved,
    position,
    parties: [{ account: from, direction: adding ? Direction.DIRECTION_OUT : Direction.DIRECTION_IN }],
  };
}

/** One AccountActivity per party, each with the account's balance at the end of the block (records/activityEvents.ts). */
function activityRecords(
  world: World,
  encode: Encoder,
  block: number,
  activities: readonly Activity[],
): StreamRecord[] {
  const { accounts, hotkeys } = world;
  const blockRef = encode.refOf(block);
  const records: StreamRecord[] = [];
  activities.forEach((activity, index) => {
    const txIndex = index + 1;
    const eventIndex = index * 3 + 2;
    const extrinsicHash = `0x${createHash("sha256").update(`${blockRef.blockHash}:${txIndex}`).digest("hex")}`;
    const stake =
      activity.position === undefined
        ? {}
        : {
            netuid: activity.position.netuid,
            hotkey: hotkeys[activity.position.hotkey]!,
            alphaNalpha: String(activity.amount),
            effectivePriceTao: "0.0123",
          };
    for (const party of activity.parties) {
      const account = accounts[party.account]!;
      const payload: NetworkChainEvent = {
        event: {
          $case: "accountActivity",
          value: {
            ref: { ...blockRef, txHash: extrinsicHash, txIndex, logIndex: eventIndex },
            account: account.id,
            activityId: `${block}-${txIndex}-${eventIndex}`,
            type: activity.type,
            direction: party.direction,
            success: true,
            from: accounts[activity.from]!.id,
            ...(activity.to === undefined ? {} : { to: accounts[activity.to]!.id }),
            amountRao: String(activity.amount),
            feeRao: "125000",
            ...stake,
            source: TransactionSource.TRANSACTION_SOURCE_SUBSTRATE_EVENT,
            extrinsicId: `${block}-${txIndex}`,
            extrinsicHash,
            eventName: EVENT_NAMES[activity.type] ?? "Balances.Transfer",
            balanceAfter: encode.balanceOf(account),
          },
        },
      };
      const id = [blockRef.blockHash, "AccountActivity", txIndex, eventIndex, account.id.publicKey];
      records.push(encode.record(account.id.publicKey, payload, ...id));
    }
  });
  return records;
}

function blockOf(number: number, epoch: number | undefined, records: StreamRecord[], activities: number): StreamBlock {
  return {
    number,
    epoch,
    records,
    activities,
    snapshots: records.filter((one) => one.eventType === "AccountBalanceSnapshot").length,
    bytes: records.reduce((sum, one) => sum + one.value.byteLength + one.key.length, 0),
  };
}

/** Builds the seeded state; `next()` then yields the blocks from `firstBlock` on. */
export function finneyStream(options: StreamOptions): FinneyStream {
  const world = buildWorld(options);
  const encode = encoder(world);
  const { random, int, accounts, stakersOf } = world;
  const sizes = FINNEY_SIZES;
  const extension = options.extend?.(
    { seed: options.seed, hotkeys: world.hotkeys, accounts, stakersOf },
    (key, payload, ...id) => encode.record(key, payload, ...id),
  );
  let block = options.firstBlock;
  return {
    accounts: sizes.accounts,
    stakers: sizes.stakers,
    positions: sizes.positions,
    stakersPerNetuid: stakersOf.map((list) => list.length),
    snapshot() {
      const number = options.firstBlock - 1;
      const all = Array.from({ length: sizes.stakers }, (_, index) => index);
      const network = extension?.snapshot(encode.refOf(number)) ?? [];
      return blockOf(number, undefined, [...encode.snapshots(number, all), ...network, ...encode.blockSeen(number)], 0);
    },
    next() {
      const number = block++;
      const wanted = options.activityMin + int(options.activityMax - options.activityMin + 1);
      const activities: Activity[] = [];
      let count = 0;
      while (count < wanted) {
        const activity = nextActivity(world);
        activities.push(activity);
        count += activity.parties.length;
      }
      const epoch = epochNetuid(number);
      let snapshots: StreamRecord[] = [];
      if (epoch !== undefined) {
        // The epoch's emission raises every position on the subnet; the stakers without activity
        // of their own in the block get a snapshot (an active one's activity carries its balance).
        const active = new Set(activities.flatMap((activity) => activity.parties.map((party) => party.account)));
        for (const index of stakersOf[epoch]!)
          for (const position of accounts[index]!.positions)
            if (position.netuid === epoch) position.stake += Math.floor(position.stake * (0.0001 + random() * 0.0019));
        snapshots = encode.snapshots(
          number,
          stakersOf[epoch]!.filter((index) => !active.has(index)),
        );
      }
      const network =
        extension?.block({
          number,
          ref: encode.refOf(number),
          epoch,
          stakeTouches: activities.flatMap((activity) =>
            activity.position === undefined
              ? []
              : [
                  {
                    netuid: activity.position.netuid,
                    hotkey: activity.position.hotkey,
                    coldkey: accounts[activity.from]!.id.publicKey,
                    adding: activity.type === TransactionType.TRANSACTION_TYPE_STAKE_ADD,
                  },
                ],
          ),
          extrinsics: activities.length,
          transfers: activities.filter((activity) => activity.type === TransactionType.TRANSACTION_TYPE_TRANSFER)
            .length,
        }) ?? [];
      const records = [
        ...activityRecords(world, encode, number, activities),
        ...snapshots,
        ...network,
        ...encode.blockSeen(number),
      ];
      return blockOf(number, epoch, records, count);
    },
  };
}

/** Root with its 4,934 positions' share, the subnets weighted 0.4-1.6 each. */
function netuidPicker(random: () => number): () => number {
  const sizes = FINNEY_SIZES;
  const subnetShare = 1 - sizes.rootPositions / sizes.positions;
  const weights = Array.from({ length: sizes.subnets }, () => 0.4 + 1.2 * random());
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const cumulative: number[] = [];
  let sum = 1 - subnetShare;
  for (const weight of weights) {
    sum += (weight / total) * subnetShare;
    cumulative.push(sum);
  }
  return () => {
    const roll = random();
    if (roll < 1 - subnetShare) return 0;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < roll) low = middle + 1;
      else high = middle;
    }
    return low + 1;
  };
}
