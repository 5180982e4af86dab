/**
 * The chain.network.v1 kinds besides the accounts' (finneyStream.ts), at Finney's shape, for the
 * Finney-day soak (finneySoak.ts): no chain. Each record is built field for field as the native
 * ingestor builds it (services/chain-ingestor/src/native: facts/pools.ts `nativePoolRecords`,
 * facts/emissions.ts `readEmissions`, facts/subnets.ts `subnetRecords`, facts/subnetDetails.ts,
 * facts/metagraph.ts `neuronState`, facts/holders.ts `holderRecords`, facts/stats.ts
 * `nativeStatsRecord`), keyed `netuid:<n>` or `network` and in the ingestor's order (pools,
 * emissions, subnet snapshots, metagraphs, holder chunks, stats; source/blockSource.ts), with the
 * amounts formatted by the same @platform/subtensor functions.
 *
 * The state (a generator of its own, seeded from the stream's seed, so the accounts records do not
 * change) follows bench/native/scale/scaleState.ts: netuids 0..=128, 256 UIDs per subnet and 64 on
 * root; uid 0 the owner's hotkey, uids 1..=32 validators drawn from a shared pool of 256 (the
 * accounts world's first 256 hotkeys, so the stakers' positions on them are theirs), the rest miners
 * with hotkeys of their own (4 per coldkey); root's UIDs the pool's first 64, which alone hold root
 * stake. Validators' coldkeys have an identity, as Finney's do.
 *
 * When each kind is published, by the ingestor's rules:
 * - every block: a PoolSnapshot and an EmissionSnapshot per netuid (reserves and pending emission
 *   move with each block's emission; the pool's block_volume_rao sums its stake events' TAO) and one
 *   NetworkStatsSnapshot;
 * - SubnetSnapshot: when the block step adjusts the subnet's registration (`LastAdjustmentBlock`,
 *   facts/subnetChanges.ts `adjustments`): modelled as an `AdjustmentInterval` of 360 blocks with a
 *   phase per subnet (an assumption: Finney's intervals vary by subnet), the burn moving;
 * - ValidatorSetSnapshot, whole (subnets.ts `nextSubnets`): at a subnet's epoch its own (scores and
 *   stakes redrawn), and on any block a stake add or remove on a hotkey registered on that subnet
 *   (its alpha stake); each carries its subnet's last epoch block and TaoWeight, and at the epoch
 *   each validator's HotkeyDividendsPerSubnet, so the subnets projection adds its yield index point
 *   there as it does for the ingestor's. A metagraph whose only change is root stake goes out as ValidatorRootStakes
 *   (the uids that moved): every metagraph on which a hotkey whose root stake the epoch's root
 *   dividends moved sits (the stepped subnet's validators that are on root, ~8 of its 32, each on
 *   ~16 subnets: 80-100 metagraphs, as bench/native/scale measured on chopsticks), and on root a
 *   stake on a pool validator. A refresh that moved nothing publishes nothing, as
 *   `refreshMetagraphs` keeps the parent's;
 * - HolderPositions (holders.ts `nextHolders` / `holderRecords`): for every subnet a stake event
 *   named, the stepped subnet and root at an epoch, a delta against its set as last published (the
 *   whole set at the first snapshot and at the subnet's keyframe, every 7,200 blocks), in chunks of
 *   2,000 positions, largest first (`valuedPositions`' order), the positions being the accounts
 *   world's. `finneyNetwork(world, record, { deltas: false })` publishes whole sets and metagraphs,
 *   as the ingestor did before (finneyBytes.ts's baseline).
 * - the first full snapshot (before the stream, off the clock) holds every kind for every netuid.
 * Not modelled, and so missing from the figures: WeightsSet (validators setting weights, which
 * re-reads and republishes a metagraph whose `lastUpdate` moved), registrations and deregistrations
 * (a metagraph read whole, the subnet's settings), hotkey swaps, subnets added or removed, and
 * reorganisations (ChainEventRemoved). The accounts world's stake activity picks a position at random
 * among 2,048 hotkeys, so ~1 in 64 lands on a validator registered on that subnet: fewer metagraphs
 * move between epochs than on Finney, where most stake goes to registered validators.
 *
 * Against bench/native/scale's chopsticks run (an epoch block ~10 MB, ~7 MB of it 85-100 metagraphs;
 * another block ~1 MB): in the baseline shape here an epoch block is ~13 MB (~90 metagraphs of ~90 KB:
 * every neuron carries both AccountIds, validators an identity) and another block ~3 MB, because the
 * accounts stream's ~10 stake events a block (its assumption) each republish their subnet's whole
 * holder set (~830 positions, ~215 KB), where the chopsticks backlog had 2 stake extrinsics a block.
 * `pnpm finney-bytes` prints both shapes' bytes per block.
 */
import type { ChainRef } from "@platform/proto/common/v1/common";
import {
  type AccountId,
  HolderCoverage,
  PoolMechanism,
  type SubnetIdentity,
  type ValidatorIdentity,
} from "@platform/proto/common/v1/network";
import type {
  HolderPosition,
  NetworkChainEvent,
  NeuronState,
  SubnetSnapshot,
} from "@platform/proto/events/v1/chain_network";
import { holderSetDelta, holderSetDigest } from "@platform/proto/holderSets";
import { accountFromPublicKey, formatRatio, formatU16Ratio, formatU64Ratio } from "@platform/subtensor";
import type { BlockPoolFlow } from "../../services/chain-ingestor/src/native/facts/poolVolume.js";
import {
  type BlockFacts,
  FINNEY_SIZES,
  keyOf,
  prng,
  type RecordEncoder,
  type StreamExtension,
  type StreamRecord,
  TEMPO,
  type WorldView,
} from "./finneyStream.js";

export const NETWORK_SIZES = {
  uidsPerSubnet: 256,
  rootUids: 64,
  validatorsPerSubnet: 32,
  validatorPool: 256,
  minersPerColdkey: 4,
  /** The ingestor's `holderChunkSize` default (source/blockSource.ts). */
  holderChunkSize: 2_000,
  adjustmentInterval: 360,
};
/** The ingestor's `holderKeyframeBlocks` default (source/blockSource.ts). */
const HOLDER_KEYFRAME_BLOCKS = 7_200;
/** Finney's block emission after the first halving, rao. */
const BLOCK_EMISSION_RAO = 500_000_000n;
const OWNER_CUT_U16 = 11_796n;
const DEFAULT_TAKE_U16 = 11_796n;
const U96F32_ONE = 1n << 32n;

interface Pool {
  taoIn: bigint;
  alphaIn: bigint;
  alphaOut: bigint;
  /** The subnet's share of the block emission, per mille. */
  weight: bigint;
  pendingServer: bigint;
  pendingValidator: bigint;
  pendingRoot: bigint;
  pendingOwner: bigint;
  lastEpoch: number;
  /** TAO swapped through the pool in the current block (its PoolSnapshot's block_volume_rao). */
  blockVolume: bigint;
  /** The current block's order flow (its PoolSnapshot's block_flow), as the native ingestor splits it. */
  flow: PoolFlow;
}

/** The ingestor's own shape of a block's pool flow, so the stream cannot drift from it. */
type PoolFlow = BlockPoolFlow;

const noFlow = (): PoolFlow => ({ buyRao: 0n, sellRao: 0n, buys: 0, sells: 0, buyers: new Set(), sellers: new Set() });

/** A registered UID: where a pool validator sits, to find its neurons when its stakes move. */
interface Seat {
  netuid: number;
  uid: number;
}

interface Net {
  random: () => number;
  int: (below: number) => number;
  key: () => AccountId;
  world: WorldView;
  /** Each netuid's neurons by uid. */
  metagraphs: NeuronState[][];
  /** Pool validators' seats, by their index (0..255). */
  seats: Seat[][];
  /** Per pool validator: its alpha stake on each subnet it sits on, and its root stake. */
  pools: Pool[];
  details: Omit<SubnetSnapshot, "ref">[];
  burn: bigint[];
  totalIssuance: bigint;
  /** Each netuid's holder set as last published (facts/holders.ts publishes deltas against it). */
  holders: Map<number, { positions: HolderPosition[]; digest: Buffer }>;
  deltas: boolean;
}

/**
 * What a block moved in the metagraphs: a subnet in `whole` is published whole; one whose only
 * change is root stake, as a ValidatorRootStakes of the uids that moved (facts/subnets.ts).
 */
interface MovedMetagraphs {
  whole: Set<number>;
  rootStakes: Map<number, Set<number>>;
}

const u16 = (net: Net) => formatU16Ratio(net.int(65_536));
const nano = (net: Net, min: number, max: number) =>
  BigInt(Math.floor(Math.exp(Math.log(min) + net.random() * (Math.log(max) - Math.log(min))) * 1e9));

function validatorIdentity(net: Net, index: number): ValidatorIdentity {
  return {
    name: `Validator ${index} Labs`,
    url: `https://validator-${index}.example.com`,
    githubRepo: "",
    image: net.random() < 0.5 ? `https://validator-${index}.example.com/logo.png` : "",
    discord: net.random() < 0.5 ? `validator${index}#${1000 + net.int(9000)}` : "",
    description: "Reliable validation across Bittensor subnets since 2023; low take, high uptime.",
    additional: "",
  };
}

function neuron(net: Net, uid: number, hotkey: AccountId, coldkey: AccountId, role: NeuronRole): NeuronState {
  const validator = role.kind !== "miner";
  return {
    uid,
    hotkey,
    coldkey,
    validatorPermit: validator,
    active: net.random() < 0.97,
    registeredAtBlock: String(1_000_000 + net.int(3_900_000)),
    take: formatU16Ratio(DEFAULT_TAKE_U16),
    childkeyTake: formatU16Ratio(0n),
    alphaStakeNalpha: String(validator ? nano(net, 1_000, 200_000) : nano(net, 1, 5_000)),
    rootStakeRao: String(role.kind === "validator" && role.onRoot ? nano(net, 10_000, 500_000) : 0n),
    dividends: validator ? u16(net) : formatU16Ratio(0n),
    vtrust: validator ? u16(net) : formatU16Ratio(0n),
    incentive: validator ? formatU16Ratio(0n) : u16(net),
    consensus: u16(net),
    emissionNalpha: String(nano(net, 0.01, 50)),
    lastUpdateBlock: String(4_999_000 + net.int(800)),
    ...(role.kind === "validator" ? { identity: role.identity } : {}),
  };
}

type NeuronRole =
  | { kind: "owner" }
  | { kind: "validator"; onRoot: boolean; identity: ValidatorIdentity }
  | { kind: "miner" };

/** Metagraphs and pool validators' seats (scaleState.ts' layout). */
function buildMetagraphs(net: Net): void {
  const sizes = NETWORK_SIZES;
  const poolColdkeys = Array.from({ length: sizes.validatorPool }, () => net.key());
  const identities = poolColdkeys.map((_, index) => validatorIdentity(net, index));
  const validatorRole = (index: number): NeuronRole => ({
    kind: "validator",
    onRoot: index < sizes.rootUids,
    identity: identities[index]!,
  });
  const seat = (index: number, netuid: number, uid: number) => net.seats[index]!.push({ netuid, uid });
  net.metagraphs[0] = Array.from({ length: sizes.rootUids }, (_, uid) => {
    seat(uid, 0, uid);
    return neuron(net, uid, net.world.hotkeys[uid]!, poolColdkeys[uid]!, validatorRole(uid));
  });
  let minerColdkey = net.key();
  let minersOfColdkey = 0;
  for (let netuid = 1; netuid <= FINNEY_SIZES.subnets; netuid++) {
    const neurons: NeuronState[] = [neuron(net, 0, net.key(), net.key(), { kind: "owner" })];
    const pool = Array.from({ length: sizes.validatorPool }, (_, index) => index);
    for (let uid = 1; uid <= sizes.validatorsPerSubnet; uid++) {
      const index = pool.splice(net.int(pool.length), 1)[0]!;
      seat(index, netuid, uid);
      neurons.push(neuron(net, uid, net.world.hotkeys[index]!, poolColdkeys[index]!, validatorRole(index)));
    }
    for (let uid = neurons.length; uid < sizes.uidsPerSubnet; uid++) {
      if (minersOfColdkey === sizes.minersPerColdkey) [minerColdkey, minersOfColdkey] = [net.key(), 0];
      minersOfColdkey++;
      neurons.push(neuron(net, uid, net.key(), minerColdkey, { kind: "miner" }));
    }
    // A validator's root stake is the same on every metagraph it sits on.
    net.metagraphs[netuid] = neurons;
  }
  for (const seats of net.seats) {
    const rootStake = seats.find((one) => one.netuid === 0);
    const value = rootStake === undefined ? "0" : net.metagraphs[0]![rootStake.uid]!.rootStakeRao;
    for (const { netuid, uid } of seats)
      net.metagraphs[netuid]![uid] = { ...net.metagraphs[netuid]![uid]!, rootStakeRao: value };
  }
}

function subnetIdentity(netuid: number): SubnetIdentity {
  return {
    subnetName: `Subnet ${netuid}`,
    githubRepo: `https://github.com/subnet-${netuid}/subnet-${netuid}`,
    subnetContact: `team@subnet-${netuid}.example.com`,
    subnetUrl: `https://subnet-${netuid}.example.com`,
    discord: `https://discord.gg/subnet${netuid}`,
    description: `Subnet ${netuid}: decentralised inference and evaluation, rewarded by validators' consensus.`,
    logoUrl: `https://subnet-${netuid}.example.com/logo.svg`,
    additional: "",
  };
}

/** facts/subnetDetails.ts `subnetDetails` with every item Finney keeps. */
function details(net: Net, netuid: number): Omit<SubnetSnapshot, "ref"> {
  const root = netuid === 0;
  const owner = net.metagraphs[netuid]![0]!;
  const identity = root ? undefined : subnetIdentity(netuid);
  return {
    netuid,
    ...(identity === undefined ? {} : { name: identity.subnetName, identity }),
    symbol: root ? "Τ" : String.fromCodePoint(0x3b1 + (netuid % 24)),
    ...(root ? {} : { ownerColdkey: owner.coldkey, ownerHotkey: owner.hotkey }),
    registeredAtBlock: String(root ? 0 : 2_000_000 + netuid * 17_000),
    mechanism: root ? PoolMechanism.POOL_MECHANISM_STABLE : PoolMechanism.POOL_MECHANISM_DYNAMIC,
    tempo: TEMPO,
    uidCount: net.metagraphs[netuid]!.length,
    maxUids: net.metagraphs[netuid]!.length,
    maxValidators: 64,
    registration: {
      allowed: !root,
      powAllowed: false,
      burnRao: net.burn[netuid]!.toString(),
      minBurnRao: "500000",
      maxBurnRao: "100000000000",
      difficulty: "10000000",
      recycledTotalRao: String(nano(net, 100, 50_000)),
    },
    transfersEnabled: true,
    emissionEnabled: !root,
    commitReveal: { enabled: net.random() < 0.6, interval: "1" },
    liquidAlpha: { enabled: net.random() < 0.4, alphaLow: formatU16Ratio(45_875n), alphaHigh: formatU16Ratio(58_982n) },
    yuma3Enabled: net.random() < 0.5,
    hyperparameters: {
      rho: 10,
      kappa: 32_767,
      immunityPeriod: 5_000,
      minAllowedWeights: 1,
      maxWeightLimit: 65_535,
      weightsVersion: "0",
      weightsRateLimit: "100",
      activityCutoff: 5_000,
      adjustmentAlpha: "0",
      bondsMovingAverage: "975000",
      servingRateLimit: "50",
      alphaSigmoidSteepness: 1_000,
    },
  };
}

function buildNet(world: WorldView): Net {
  const random = prng(world.seed * 7 + 1_000_003);
  const int = (below: number) => Math.floor(random() * below);
  const net: Net = {
    random,
    int,
    key: () => accountFromPublicKey(keyOf(random) as `0x${string}`),
    world,
    metagraphs: [],
    seats: Array.from({ length: NETWORK_SIZES.validatorPool }, () => []),
    pools: [],
    details: [],
    burn: [],
    totalIssuance: 9_160_000n * 1_000_000_000n,
    holders: new Map(),
    deltas: true,
  };
  buildMetagraphs(net);
  for (let netuid = 0; netuid <= FINNEY_SIZES.subnets; netuid++) {
    const taoIn = netuid === 0 ? 3_000_000n * 1_000_000_000n : nano(net, 5_000, 150_000);
    const price = 0.005 + random() * 0.2;
    net.pools.push({
      taoIn,
      alphaIn: netuid === 0 ? 0n : BigInt(Math.floor(Number(taoIn) / price)),
      alphaOut: netuid === 0 ? 0n : nano(net, 500_000, 3_000_000),
      weight: BigInt(1 + int(20)),
      pendingServer: 0n,
      pendingValidator: 0n,
      pendingRoot: 0n,
      pendingOwner: 0n,
      lastEpoch: 0,
      blockVolume: 0n,
      flow: noFlow(),
    });
    net.burn.push(nano(net, 0.0005, 2));
  }
  for (let netuid = 0; netuid <= FINNEY_SIZES.subnets; netuid++) net.details.push(details(net, netuid));
  return net;
}

/** Builds the network state over the accounts world; its records go where the ingestor puts them. */
export function finneyNetwork(
  world: WorldView,
  record: RecordEncoder,
  /** `deltas: false` publishes as the ingestor did before deltas (whole holder sets and metagraphs): finneyBytes.ts's baseline. */
  options: { deltas: boolean } = { deltas: true },
): StreamExtension {
  const net = buildNet(world);
  net.deltas = options.deltas;
  const all = Array.from({ length: FINNEY_SIZES.subnets + 1 }, (_, netuid) => netuid);
  return {
    snapshot(ref) {
      const block = Number(ref.blockNumber);
      return [
        ...poolRecords(net, ref, record),
        ...emissionRecords(net, ref, block, record),
        ...all.map((netuid) => subnetRecord(net, ref, netuid, record)),
        ...all.map((netuid) => metagraphRecord(net, ref, netuid, record)),
        ...all.flatMap((netuid) => holderRecords(net, ref, netuid, record)),
        statsRecord(net, ref, block, { extrinsics: 1, transfers: 0 }, record),
      ];
    },
    block(facts) {
      const moved = stepNetwork(net, facts);
      const adjusted = all.filter(
        (netuid) => netuid !== 0 && (facts.number + 3 * netuid) % NETWORK_SIZES.adjustmentInterval === 0,
      );
      for (const netuid of adjusted) {
        net.burn[netuid] = (net.burn[netuid]! * BigInt(90 + net.int(21))) / 100n + 1n;
        net.details[netuid] = {
          ...net.details[netuid]!,
          registration: { ...net.details[netuid]!.registration!, burnRao: net.burn[netuid]!.toString() },
        };
      }
      const dirtyHolders = new Set(facts.stakeTouches.map((touch) => touch.netuid));
      if (facts.epoch !== undefined) dirtyHolders.add(facts.epoch).add(0);
      const { ref } = facts;
      return [
        ...poolRecords(net, ref, record),
        ...emissionRecords(net, ref, facts.number, record),
        ...adjusted.map((netuid) => subnetRecord(net, ref, netuid, record)),
        ...[...(net.deltas ? moved.whole : new Set([...moved.whole, ...moved.rootStakes.keys()]))]
          .sort((a, b) => a - b)
          .map((netuid) => metagraphRecord(net, ref, netuid, record)),
        ...[...moved.rootStakes]
          .filter(([netuid]) => net.deltas && !moved.whole.has(netuid))
          .sort(([a], [b]) => a - b)
          .map(([netuid, uids]) => rootStakesRecord(net, ref, netuid, uids, record)),
        ...[...dirtyHolders].sort((a, b) => a - b).flatMap((netuid) => holderRecords(net, ref, netuid, record)),
        statsRecord(net, ref, facts.number, facts, record),
      ];
    },
  };
}

/** Moves the state by a block (emission, the epoch, the stake events); the metagraphs that moved. */
function stepNetwork(net: Net, facts: BlockFacts): MovedMetagraphs {
  const moved: MovedMetagraphs = { whole: new Set(), rootStakes: new Map() };
  const total = net.pools.reduce((sum, pool, netuid) => (netuid === 0 ? sum : sum + pool.weight), 0n);
  for (const pool of net.pools) {
    pool.blockVolume = 0n;
    pool.flow = noFlow();
  }
  net.pools.forEach((pool, netuid) => {
    if (netuid === 0) return;
    const tao = (BLOCK_EMISSION_RAO * pool.weight) / total;
    pool.taoIn += tao;
    pool.alphaIn += (tao * pool.alphaIn) / pool.taoIn;
    pool.alphaOut += 1_000_000_000n;
    pool.pendingServer += 410_000_000n;
    pool.pendingValidator += 410_000_000n;
    pool.pendingRoot += 90_000_000n;
    pool.pendingOwner += 180_000_000n;
  });
  net.totalIssuance += BLOCK_EMISSION_RAO;
  for (const touch of facts.stakeTouches) {
    const pool = net.pools[touch.netuid]!;
    const amount = nano(net, 0.01, 2_000);
    // Adds and removes swap TAO in and out of the pool, as the stream's own activity did; a removal
    // never drains it. The draw that once chose the direction is still taken: the rest of the
    // network's randomness stays as it was.
    net.random();
    if (touch.adding) {
      pool.taoIn += amount;
      pool.blockVolume += amount;
      pool.flow.buyRao += amount;
      pool.flow.buys += 1;
      pool.flow.buyers.add(touch.coldkey);
    } else if (pool.taoIn > amount * 4n) {
      pool.taoIn -= amount / 2n;
      pool.blockVolume += amount / 2n;
      pool.flow.sellRao += amount / 2n;
      pool.flow.sells += 1;
      pool.flow.sellers.add(touch.coldkey);
    }
    if (touch.hotkey >= NETWORK_SIZES.validatorPool) continue;
    // A stake on a registered validator moves its alpha stake there; on root, its root stake everywhere.
    for (const seat of net.seats[touch.hotkey]!) {
      if (seat.netuid === touch.netuid) {
        bump(net, seat, "alphaStakeNalpha", amount);
        moved.whole.add(seat.netuid);
      }
      if (touch.netuid === 0) {
        bump(net, seat, "rootStakeRao", amount);
        rootStakeMoved(moved, seat);
      }
    }
  }
  if (facts.epoch !== undefined) epoch(net, facts, moved);
  return moved;
}

function bump(net: Net, seat: Seat, field: "alphaStakeNalpha" | "rootStakeRao", amount: bigint): void {
  const neurons = net.metagraphs[seat.netuid]!;
  const before = neurons[seat.uid]!;
  neurons[seat.uid] = { ...before, [field]: String(BigInt(before[field] ?? "0") + amount) };
}

/** A subnet's epoch: its scores and stakes redrawn, root dividends to its validators that are on root. */
function epoch(net: Net, facts: BlockFacts, moved: MovedMetagraphs): void {
  const netuid = facts.epoch!;
  const pool = net.pools[netuid]!;
  Object.assign(pool, { pendingServer: 0n, pendingValidator: 0n, pendingRoot: 0n, pendingOwner: 0n });
  pool.lastEpoch = facts.number;
  const neurons = net.metagraphs[netuid]!;
  neurons.forEach((before, uid) => {
    const validator = before.validatorPermit;
    neurons[uid] = {
      ...before,
      alphaStakeNalpha: String(BigInt(before.alphaStakeNalpha) + nano(net, 0.01, 20)),
      dividends: validator ? u16(net) : before.dividends,
      vtrust: validator ? u16(net) : before.vtrust,
      incentive: validator ? before.incentive : u16(net),
      consensus: u16(net),
      emissionNalpha: String(nano(net, 0.01, 50)),
      lastUpdateBlock: validator ? String(facts.number - net.int(100)) : before.lastUpdateBlock,
      ...(validator ? { hotkeyDividendsNalpha: String(nano(net, 1, 500)) } : {}),
    };
  });
  moved.whole.add(netuid);
  for (const seats of net.seats) {
    if (!seats.some((seat) => seat.netuid === netuid) || !seats.some((seat) => seat.netuid === 0)) continue;
    const dividend = nano(net, 0.1, 50);
    for (const seat of seats) {
      bump(net, seat, "rootStakeRao", dividend);
      rootStakeMoved(moved, seat);
    }
  }
}

function rootStakeMoved(moved: MovedMetagraphs, seat: Seat): void {
  moved.rootStakes.set(seat.netuid, (moved.rootStakes.get(seat.netuid) ?? new Set()).add(seat.uid));
}

/** facts/subnets.ts: the neurons whose root stake moved, when nothing else of the metagraph did. */
function rootStakesRecord(
  net: Net,
  ref: ChainRef,
  netuid: number,
  uids: Set<number>,
  record: RecordEncoder,
): StreamRecord {
  const key = `netuid:${netuid}`;
  const neurons = net.metagraphs[netuid]!;
  const stakes = [...uids]
    .sort((a, b) => a - b)
    .map((uid) => ({
      uid,
      hotkey: neurons[uid]!.hotkey?.publicKey ?? "",
      ...(neurons[uid]!.rootStakeRao === undefined ? {} : { rootStakeRao: neurons[uid]!.rootStakeRao }),
    }));
  const payload: NetworkChainEvent = { event: { $case: "validatorRootStakes", value: { ref, netuid, stakes } } };
  return record(key, payload, ref.blockHash, "ValidatorRootStakes", key);
}

function poolRecords(net: Net, ref: ChainRef, record: RecordEncoder): StreamRecord[] {
  return net.pools.map((pool, netuid) => {
    const key = `netuid:${netuid}`;
    const price = netuid === 0 ? "1" : pool.alphaIn === 0n ? "0" : formatRatio(pool.taoIn, pool.alphaIn, 9);
    const payload: NetworkChainEvent = {
      event: {
        $case: "poolSnapshot",
        value: {
          ref,
          netuid,
          mechanism: netuid === 0 ? PoolMechanism.POOL_MECHANISM_STABLE : PoolMechanism.POOL_MECHANISM_DYNAMIC,
          taoInRao: pool.taoIn.toString(),
          alphaInNalpha: pool.alphaIn.toString(),
          alphaOutNalpha: pool.alphaOut.toString(),
          alphaIssuanceNalpha: (pool.alphaIn + pool.alphaOut).toString(),
          priceTao: price,
          blockVolumeRao: pool.blockVolume.toString(),
          blockFlow: {
            buyVolumeRao: pool.flow.buyRao.toString(),
            sellVolumeRao: pool.flow.sellRao.toString(),
            buys: pool.flow.buys,
            sells: pool.flow.sells,
            buyers: [...pool.flow.buyers].sort(),
            sellers: [...pool.flow.sellers].sort(),
          },
        },
      },
    };
    return record(key, payload, ref.blockHash, "PoolSnapshot", key);
  });
}

/** facts/emissions.ts `readEmissions` with every item a current runtime keeps. */
function emissionRecords(net: Net, ref: ChainRef, block: number, record: RecordEncoder): StreamRecord[] {
  const total = net.pools.reduce((sum, pool, netuid) => (netuid === 0 ? sum : sum + pool.weight), 0n);
  return net.pools.map((pool, netuid) => {
    const key = `netuid:${netuid}`;
    const root = netuid === 0;
    const tao = root ? 0n : (BLOCK_EMISSION_RAO * pool.weight) / total;
    const until = TEMPO - ((block + 1 + netuid + 1) % (TEMPO + 1));
    const payload: NetworkChainEvent = {
      event: {
        $case: "emissionSnapshot",
        value: {
          ref,
          netuid,
          emissionEnabled: !root,
          taoInEmissionRao: tao.toString(),
          alphaInEmissionNalpha: root ? "0" : ((tao * pool.alphaIn) / pool.taoIn).toString(),
          alphaOutEmissionNalpha: root ? "0" : "1000000000",
          excessTaoRao: "0",
          rootSellTaoRao: root ? "0" : (tao / 9n).toString(),
          pendingServerNalpha: pool.pendingServer.toString(),
          pendingValidatorNalpha: pool.pendingValidator.toString(),
          pendingRootAlphaNalpha: pool.pendingRoot.toString(),
          pendingOwnerCutNalpha: pool.pendingOwner.toString(),
          rootProp: formatRatio((U96F32_ONE * BigInt(100 + netuid)) / 1_000n, U96F32_ONE, 18),
          blockEmissionRao: BLOCK_EMISSION_RAO.toString(),
          ownerCut: formatU16Ratio(OWNER_CUT_U16),
          tempo: TEMPO,
          ...(pool.lastEpoch === 0 ? {} : { lastEpochBlock: String(pool.lastEpoch) }),
          nextEpochBlock: String(block + 1 + until),
        },
      },
    };
    return record(key, payload, ref.blockHash, "EmissionSnapshot", key);
  });
}

function subnetRecord(net: Net, ref: ChainRef, netuid: number, record: RecordEncoder): StreamRecord {
  const key = `netuid:${netuid}`;
  const payload: NetworkChainEvent = { event: { $case: "subnetSnapshot", value: { ref, ...net.details[netuid]! } } };
  return record(key, payload, ref.blockHash, "SubnetSnapshot", key);
}

/** TaoWeight as the stats and metagraphs carry it (Finney's, a u64 ratio). */
const TAO_WEIGHT = formatU64Ratio(3_320_413_608_267_911_168n);

function metagraphRecord(net: Net, ref: ChainRef, netuid: number, record: RecordEncoder): StreamRecord {
  const key = `netuid:${netuid}`;
  const lastEpoch = net.pools[netuid]!.lastEpoch;
  const payload: NetworkChainEvent = {
    event: {
      $case: "validatorSetSnapshot",
      value: {
        ref,
        netuid,
        neurons: [...net.metagraphs[netuid]!],
        ...(lastEpoch === 0 ? {} : { lastEpochBlock: String(lastEpoch) }),
        taoWeight: TAO_WEIGHT,
      },
    },
  };
  return record(key, payload, ref.blockHash, "ValidatorSetSnapshot", key);
}

/**
 * holders.ts `holderRecords`: the subnet's set, largest first, in chunks (one empty chunk when
 * none): a delta against the set last published, or whole at the first snapshot and when the
 * subnet's keyframe is due (every HOLDER_KEYFRAME_BLOCKS, offset by netuid).
 */
function holderRecords(net: Net, ref: ChainRef, netuid: number, record: RecordEncoder): StreamRecord[] {
  const { accounts, hotkeys, stakersOf } = net.world;
  const merged = new Map<string, { coldkey: AccountId; hotkey: AccountId; alpha: bigint }>();
  for (const index of stakersOf[netuid] ?? []) {
    const account = accounts[index]!;
    for (const position of account.positions) {
      if (position.netuid !== netuid || position.stake <= 0) continue;
      const hotkey = hotkeys[position.hotkey]!;
      const id = `${hotkey.publicKey}${account.id.publicKey}`;
      const entry = merged.get(id);
      if (entry === undefined) merged.set(id, { coldkey: account.id, hotkey, alpha: BigInt(position.stake) });
      else entry.alpha += BigInt(position.stake);
    }
  }
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const set = [...merged.values()]
    .sort((a, b) =>
      a.alpha === b.alpha
        ? order(a.coldkey.publicKey, b.coldkey.publicKey) || order(a.hotkey.publicKey, b.hotkey.publicKey)
        : a.alpha > b.alpha
          ? -1
          : 1,
    )
    .map((entry) => ({ coldkey: entry.coldkey, hotkey: entry.hotkey, alphaNalpha: entry.alpha.toString() }));
  const whole = { positions: set, digest: holderSetDigest(set) };
  const last = net.holders.get(netuid);
  net.holders.set(netuid, whole);
  const keyframe =
    !net.deltas ||
    last === undefined ||
    Number(ref.blockNumber) % HOLDER_KEYFRAME_BLOCKS === netuid % HOLDER_KEYFRAME_BLOCKS;
  const positions = keyframe ? set : holderSetDelta(last.positions, set);
  const digests = !net.deltas
    ? {}
    : keyframe
      ? { digest: whole.digest }
      : { baseDigest: last.digest, digest: whole.digest };
  const size = NETWORK_SIZES.holderChunkSize;
  const chunkCount = Math.max(1, Math.ceil(positions.length / size));
  const key = `netuid:${netuid}`;
  return Array.from({ length: chunkCount }, (_, chunkIndex) =>
    record(
      key,
      {
        event: {
          $case: "holderPositions",
          value: {
            ref,
            netuid,
            coverage: HolderCoverage.HOLDER_COVERAGE_COMPLETE,
            chunkIndex,
            chunkCount,
            positions: positions.slice(chunkIndex * size, (chunkIndex + 1) * size),
            ...digests,
          },
        },
      },
      ref.blockHash,
      "HolderPositions",
      key,
      chunkIndex,
    ),
  );
}

/** facts/stats.ts `nativeStatsRecord`, every storage item present. */
function statsRecord(
  net: Net,
  ref: ChainRef,
  block: number,
  counts: { extrinsics: number; transfers: number },
  record: RecordEncoder,
): StreamRecord {
  const stakedRoot = net.pools[0]!.taoIn;
  const stakedAlpha = net.pools.slice(1).reduce((sum, pool) => sum + pool.taoIn, 0n);
  const lastLock = 1_000n * 1_000_000_000n;
  const payload: NetworkChainEvent = {
    event: {
      $case: "networkStatsSnapshot",
      value: {
        ref,
        totalIssuanceRao: net.totalIssuance.toString(),
        balancesTotalIssuanceRao: (net.totalIssuance - stakedRoot - stakedAlpha).toString(),
        totalStakeRao: (stakedRoot + stakedAlpha).toString(),
        stakedRootRao: stakedRoot.toString(),
        stakedAlphaPoolsRao: stakedAlpha.toString(),
        subnetLockedRao: (128n * lastLock).toString(),
        blockEmissionRao: BLOCK_EMISSION_RAO.toString(),
        taoWeight: TAO_WEIGHT,
        rootNetuid: 0,
        subnetsCount: net.pools.length,
        subnetLimit: 128,
        subnetRegistrationCostRao: (lastLock * 2n - (lastLock / 14_400n) * BigInt(block % 14_400)).toString(),
        subnetMinLockRao: (100n * 1_000_000_000n).toString(),
        subnetLastLockRao: lastLock.toString(),
        subnetLastRegistrationBlock: "4990000",
        lockReductionIntervalBlocks: "14400",
        accountsCount: String(FINNEY_SIZES.accounts),
        blockExtrinsicsCount: counts.extrinsics,
        blockTransfersCount: counts.transfers,
      },
    },
  };
  return record("network", payload, ref.blockHash, "NetworkStatsSnapshot", "network");
}
